import { publishEvent, SUBJECTS, type NatsConnection, type PublishAudit } from '@gw/kit';
import { events } from '@gw/proto';
import type { AccountEvents } from '../../domain/ports/deps.js';

/**
 * gw.account.changed.<id> on core NATS, so every edge replica drops its cached entry, and
 * gw.audit.<action> into the GW_AUDIT stream (message id = event id) for the operation log.
 */
export function natsAccountEvents(nc: NatsConnection, audit: PublishAudit): AccountEvents {
  return {
    accountChanged(accountId, reason, keyHash) {
      publishEvent(nc, SUBJECTS.accountChanged(accountId), events.AccountChanged, {
        accountId,
        reason,
        keyHash: keyHash ?? '',
        at: new Date().toISOString(),
      });
    },
    audit,
  };
}
