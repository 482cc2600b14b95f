/**
 * Every NATS subject and JetStream stream, in one place. Subjects follow
 * gw.<noun>.<past-verb>[.<scope>]; payloads are messages of proto/gw/events/v1/events.proto.
 */
export const SUBJECTS = {
  accountChanged: (accountId: bigint | number | string) => `gw.account.changed.${accountId}`,
  accountChangedAll: 'gw.account.changed.*',
  configUpdated: (ownerId: bigint | number | string) => `gw.config.updated.${ownerId}`,
  configUpdatedAll: 'gw.config.updated.*',
  keysChanged: (ownerId: bigint | number | string) => `gw.keys.changed.${ownerId}`,
  keysChangedAll: 'gw.keys.changed.*',
  audit: (action: string) => `gw.audit.${action}`,
  auditAll: 'gw.audit.*',
  usageRecorded: 'gw.usage.recorded',
  levelSwitched: (ownerId: bigint | number | string) => `gw.level.switched.${ownerId}`,
  levelSwitchedAll: 'gw.level.switched.*',
} as const;

/** Durable streams. Invalidation subjects stay on core NATS: every replica must see each one. */
export const STREAMS = {
  usage: { name: 'GW_USAGE', subjects: [SUBJECTS.usageRecorded] },
  audit: { name: 'GW_AUDIT', subjects: [SUBJECTS.auditAll] },
} as const;
export type StreamSpec = (typeof STREAMS)[keyof typeof STREAMS];
