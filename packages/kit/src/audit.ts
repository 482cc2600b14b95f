import { newId } from './ids.js';
import type { Logger } from './log.js';
import { ensureStream, publishDurable, type NatsConnection } from './nats.js';
import { STREAMS, SUBJECTS } from './subjects.js';
import { events } from '@gw/proto';

/** What an operation-log entry's target_id names. */
export type AuditTargetType = 'account' | 'key' | 'config' | 'news';

/** One operation-log entry as any service reports it; never carries a secret. */
export interface AuditEntry {
  action: string;
  operatorId: bigint;
  targetId: bigint;
  details: string;
  ipAddress: string;
  /** Default: by the action (`targetTypeOf`). */
  targetType?: AuditTargetType;
  /** Default `success`; a refused or failed operation is `failed`. */
  status?: 'success' | 'failed';
  /** The owner whose tree the target is in, when the operator is outside it (root in multi-tenant mode). */
  tenantId?: bigint;
}

/** The target type an action implies (`add_key` names a key); entries of older publishers carry none. */
export function targetTypeOf(action: string): AuditTargetType {
  if (action.endsWith('_key')) {
    return 'key';
  }
  if (action.endsWith('_config')) {
    return 'config';
  }
  if (action.endsWith('_news')) {
    return 'news';
  }
  return 'account';
}

export type PublishAudit = (entry: AuditEntry) => void;

/** A PublishAudit that can be waited for: an admin command settles it before it closes NATS. */
export type AuditPublisher = PublishAudit & {
  /** Resolves once every entry published so far is stored by the stream, or known lost. */
  settled(): Promise<void>;
};

/**
 * The one way every service reports gw.audit.<action>: into the GW_AUDIT stream (made sure of
 * here, so entries published before accounts first starts are kept), with message id = event id
 * so a retried publish is stored once. Publishing never blocks or fails the operation it reports.
 */
export async function createAuditPublisher(nc: NatsConnection, log: Logger): Promise<AuditPublisher> {
  await ensureStream(nc, STREAMS.audit);
  const js = nc.jetstream();
  const inFlight = new Set<Promise<unknown>>();
  const publish: PublishAudit = (entry) => {
    const eventId = newId('event');
    const message = {
      ...entry,
      targetType: entry.targetType ?? targetTypeOf(entry.action),
      status: entry.status ?? 'success',
      tenantId: entry.tenantId ?? 0n,
      at: new Date().toISOString(),
      eventId,
    };
    const published = publishDurable(js, SUBJECTS.audit(entry.action), events.AuditRecorded, message, eventId)
      .catch((error: unknown) => {
        log.warn({ err: error, action: entry.action }, 'audit event not published');
      })
      .finally(() => inFlight.delete(published));
    inFlight.add(published);
  };
  return Object.assign(publish, {
    settled: async () => {
      await Promise.all([...inFlight]);
    },
  });
}
