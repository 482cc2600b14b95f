import { publishEvent, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { AccountEvents } from '../../domain/ports.js';

/** Publishes gw.account.changed.<id> on core NATS so every edge replica drops its cached entry. */
export function natsAccountEvents(nc: NatsConnection): AccountEvents {
  return {
    accountChanged(accountId, reason, keyHash) {
      publishEvent(nc, SUBJECTS.accountChanged(accountId), events.AccountChanged, {
        accountId,
        reason,
        keyHash: keyHash ?? '',
        at: new Date().toISOString(),
      });
    },
  };
}
