import { publishEvent, SUBJECTS, type NatsConnection, type PublishAudit } from '@gw/kit';
import { events } from '@gw/proto';
import type { PoolEvents } from '../../domain/ports/deps.js';

/** gw.keys.changed.<owner> (version only, never a key) and gw.audit.<action> entries. */
export function natsPoolEvents(nc: NatsConnection, audit: PublishAudit): PoolEvents {
  return {
    keysChanged(ownerId, version) {
      publishEvent(nc, SUBJECTS.keysChanged(ownerId), events.KeysChanged, {
        ownerId,
        version,
        at: new Date().toISOString(),
      });
    },
    audit,
  };
}
