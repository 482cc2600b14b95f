import { consumeDurable, STREAMS, type Logger, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { AccountsDeps } from '../../domain/ports/deps.js';
import { recordOperation } from '../../domain/record-operation.js';

export const AUDIT_CONSUMER = 'accounts-operation-log';

/** Writes every gw.audit.* event of the GW_AUDIT stream into the operation log (durable, idempotent). */
export function consumeAuditEvents(
  nc: NatsConnection,
  deps: Pick<AccountsDeps, 'store' | 'clock'>,
  log: Logger,
) {
  return consumeDurable(
    nc,
    STREAMS.audit,
    AUDIT_CONSUMER,
    events.AuditRecorded,
    async (event) => {
      try {
        await recordOperation(deps, event);
      } catch (error) {
        // A malformed event can never succeed: log it and let it go rather than redeliver forever.
        if ((error as { code?: string }).code === 'invalid_request') {
          log.warn({ err: error }, 'audit event dropped');
          return;
        }
        throw error;
      }
    },
    log,
  );
}
