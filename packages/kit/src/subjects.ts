import { env } from './config.js';

/**
 * Every NATS subject and JetStream stream, in one place. Subjects follow
 * gw.<noun>.<past-verb>[.<scope>]; payloads are messages of proto/gw/events/v1/events.proto.
 */
export const SUBJECTS = {
  accountChanged: (accountId: bigint | number | string) => `gw.account.changed.${accountId}`,
  accountChangedAll: 'gw.account.changed.*',
  configUpdated: (ownerId: bigint | number | string) => `gw.config.updated.${ownerId}`,
  configUpdatedAll: 'gw.config.updated.*',
  /** The system-wide settings (root's LogEnable) changed: every edge and proxy reads them again. */
  systemUpdated: 'gw.system.updated',
  keysChanged: (ownerId: bigint | number | string) => `gw.keys.changed.${ownerId}`,
  keysChangedAll: 'gw.keys.changed.*',
  audit: (action: string) => `gw.audit.${action}`,
  auditAll: 'gw.audit.*',
  usageRecorded: 'gw.usage.recorded',
  levelSwitched: (ownerId: bigint | number | string) => `gw.level.switched.${ownerId}`,
  levelSwitchedAll: 'gw.level.switched.*',
  /** A message a durable consumer set aside (`durable-consumer.ts`), scoped by the consumer's name. */
  eventDeadLettered: (consumer: string) => `gw.event.deadlettered.${consumer}`,
  eventDeadLetteredAll: 'gw.event.deadlettered.*',
} as const;

/** Durable streams. Invalidation subjects stay on core NATS: every replica must see each one. */
export const STREAMS = {
  usage: { name: 'GW_USAGE', subjects: [SUBJECTS.usageRecorded] },
  audit: { name: 'GW_AUDIT', subjects: [SUBJECTS.auditAll] },
  deadLetter: { name: 'GW_DEAD_LETTER', subjects: [SUBJECTS.eventDeadLetteredAll] },
} as const;
export type StreamSpec = (typeof STREAMS)[keyof typeof STREAMS];

/**
 * GW_USAGE keeps usage events at most GW_USAGE_MAX_AGE_DAYS (and GW_USAGE_MAX_BYTES when set),
 * so it does not grow forever. Billing acknowledges events within seconds; the limit only
 * matters when billing is down longer than it, and then the oldest unbilled events are lost,
 * so keep it well above any outage you plan for. Producer (proxy) and consumer (billing) both
 * declare the stream and read the same variables.
 */
export const usageStreamEnv = {
  GW_USAGE_MAX_AGE_DAYS: env
    .integer(14, { min: 1, max: 3650 })
    .describe('Days the GW_USAGE stream keeps usage events (billing and the proxy declare it alike).'),
  GW_USAGE_MAX_BYTES: env.integer(0, { min: 0 }).describe('Bytes GW_USAGE keeps at most; 0: no byte limit.'),
};

export function usageStreamLimits(config: { GW_USAGE_MAX_AGE_DAYS: number; GW_USAGE_MAX_BYTES: number }) {
  return { maxAgeMs: config.GW_USAGE_MAX_AGE_DAYS * 86_400_000, maxBytes: config.GW_USAGE_MAX_BYTES };
}
