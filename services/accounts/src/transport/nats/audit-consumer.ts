import { AppError, consumeDurable, ErrorCode, STREAMS, type Logger, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { AccountsDeps } from '../../domain/ports/deps.js';
import { recordOperation } from '../../domain/record-operation.js';

export const AUDIT_CONSUMER = 'accounts-operation-log';

/**
 * Writes every gw.audit.* event of the GW_AUDIT stream into the operation log (durable,
 * idempotent), one event at a time: an event the log refuses is set aside in GW_DEAD_LETTER with
 * its reason, and one that keeps failing is set aside after the consumer's bounded redelivery.
 */
export function consumeAuditEvents(
  nc: NatsConnection,
  deps: Pick<AccountsDeps, 'store' | 'clock'>,
  log: Logger,
) {
  return consumeDurable(nc, {
    stream: STREAMS.audit,
    durable: AUDIT_CONSUMER,
    codec: events.AuditRecorded,
    log,
    async handle([entry]) {
      if (!entry) {
        return [];
      }
      try {
        await recordOperation(deps, entry.event);
        return [];
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.InvalidRequest) {
          return [{ seq: entry.seq, reason: error.message }];
        }
        throw error;
      }
    },
  });
}
