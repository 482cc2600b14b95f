import { newId, publishDurable, publishEvent, SUBJECTS, type Logger, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { AccountEvents } from '../../domain/ports.js';

/**
 * gw.account.changed.<id> on core NATS, so every edge replica drops its cached entry, and
 * gw.audit.<action> into the GW_AUDIT stream (message id = event id) for the operation log.
 */
export function natsAccountEvents(nc: NatsConnection, log: Logger): AccountEvents {
  const js = nc.jetstream();
  return {
    accountChanged(accountId, reason, keyHash) {
      publishEvent(nc, SUBJECTS.accountChanged(accountId), events.AccountChanged, {
        accountId,
        reason,
        keyHash: keyHash ?? '',
        at: new Date().toISOString(),
      });
    },
    audit(entry) {
      const eventId = newId('event');
      const message = { ...entry, status: 'success', at: new Date().toISOString(), eventId };
      publishDurable(js, SUBJECTS.audit(entry.action), events.AuditRecorded, message, eventId).catch((error: unknown) => {
        log.warn({ err: error, action: entry.action }, 'audit event not published');
      });
    },
  };
}
