import { newId, publishEvent, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { PoolEvents } from '../../domain/ports.js';

/** gw.keys.changed.<owner> (version only, never a key) and gw.audit.<action> entries. */
export function natsPoolEvents(nc: NatsConnection): PoolEvents {
  return {
    keysChanged(ownerId, version) {
      publishEvent(nc, SUBJECTS.keysChanged(ownerId), events.KeysChanged, { ownerId, version, at: new Date().toISOString() });
    },
    audit(entry) {
      publishEvent(nc, SUBJECTS.audit(entry.action), events.AuditRecorded, {
        action: entry.action,
        operatorId: entry.operatorId,
        targetId: entry.targetId,
        details: entry.details,
        ipAddress: entry.ipAddress,
        status: 'success',
        at: new Date().toISOString(),
        eventId: newId('event'),
      });
    },
  };
}
