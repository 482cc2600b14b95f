import { stripControlCharacters } from './control-chars.js';
import { AppError, ErrorCode, excerpt } from './errors.js';
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
  const inFlight = new Set<Promise<unknown>>();
  const publish: PublishAudit = (entry) => {
    const eventId = newId('event');
    const message = {
      ...entry,
      // A refused request's path or reason can carry a NUL, which no operation log can store.
      details: stripControlCharacters(entry.details),
      ipAddress: stripControlCharacters(entry.ipAddress),
      targetType: entry.targetType ?? targetTypeOf(entry.action),
      status: entry.status ?? 'success',
      tenantId: entry.tenantId ?? 0n,
      at: new Date().toISOString(),
      eventId,
    };
    const published = publishDurable(nc, SUBJECTS.audit(entry.action), events.AuditRecorded, message, eventId)
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

/** What recordingFailure reports: an AuditEntry with a narrower action, as a service's port has it. */
interface FailureEntry<A extends string> {
  action: A;
  operatorId: bigint;
  targetId: bigint;
  details: string;
  ipAddress: string;
  status?: 'success' | 'failed';
}

/**
 * Runs one management operation and, when it is refused or fails, reports that to the
 * operator's log with status `failed`, then rethrows. The entry names no target (a refused request
 * may name one the operator may not know about) and no secret: the reason is the refusal's own
 * message, shortened, or "internal error". A caller that no longer exists is not reported.
 */
export async function recordingFailure<T, A extends string>(
  audit: (entry: FailureEntry<A>) => void,
  entry: { action: A; operatorId: bigint; ipAddress: string; attempt: string },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError && error.code === ErrorCode.Unauthenticated)) {
      const reason = error instanceof AppError ? excerpt(error.message, 200) : 'internal error';
      audit({
        action: entry.action,
        operatorId: entry.operatorId,
        targetId: 0n,
        details: `${entry.attempt} refused: ${reason}`,
        ipAddress: entry.ipAddress,
        status: 'failed',
      });
    }
    throw error;
  }
}
