import { type EventCodec, STREAMS, SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';

/** One kind of event: the subjects it travels on and its message in events.proto. */
export interface EventKind {
  pattern: string;
  type: string;
  codec: EventCodec<unknown>;
}

/**
 * A message a consumer set aside: the original payload, kept as it was (it may be what could not
 * be decoded); its reason travels in the `Gw-Dead-*` headers.
 */
const asSetAside: EventCodec<unknown> = { toJSON: (message) => message, fromJSON: (object) => object };

/**
 * Every subject of packages/kit/src/subjects.ts with its events.proto message (docs/events.md
 * describes each). A subject added there without a row here is printed raw, and fails
 * catalog.test.ts.
 */
export const EVENT_KINDS: readonly EventKind[] = [
  { pattern: SUBJECTS.accountChangedAll, type: 'AccountChanged', codec: events.AccountChanged },
  { pattern: SUBJECTS.configUpdatedAll, type: 'ConfigUpdated', codec: events.ConfigUpdated },
  { pattern: SUBJECTS.keysChangedAll, type: 'KeysChanged', codec: events.KeysChanged },
  {
    pattern: SUBJECTS.systemUpdated,
    type: 'SystemSettingsUpdated',
    codec: events.SystemSettingsUpdated,
  },
  { pattern: SUBJECTS.auditAll, type: 'AuditRecorded', codec: events.AuditRecorded },
  { pattern: SUBJECTS.usageRecorded, type: 'UsageRecorded', codec: events.UsageRecorded },
  { pattern: SUBJECTS.levelSwitchedAll, type: 'LevelSwitched', codec: events.LevelSwitched },
  { pattern: SUBJECTS.eventDeadLetteredAll, type: 'DeadLettered', codec: asSetAside },
] as EventKind[];

/** NATS subject matching: `*` is one token, `>` the rest (one token at least). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const wanted = pattern.split('.');
  const tokens = subject.split('.');
  for (const [index, token] of wanted.entries()) {
    if (token === '>') {
      return tokens.length > index;
    }
    if (index >= tokens.length || (token !== '*' && token !== tokens[index])) {
      return false;
    }
  }
  return tokens.length === wanted.length;
}

export function kindOf(subject: string): EventKind | undefined {
  return EVENT_KINDS.find((kind) => subjectMatches(kind.pattern, subject));
}

/** The JetStream stream a subject is stored in, if any. */
export function streamOf(subject: string): string | undefined {
  return Object.values(STREAMS).find((stream) =>
    stream.subjects.some((pattern) => subjectMatches(pattern, subject)),
  )?.name;
}
