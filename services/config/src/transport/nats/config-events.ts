import { publishEvent, SUBJECTS, type NatsConnection, type PublishAudit } from '@gw/kit';
import { events } from '@gw/proto';
import type { ConfigEvents } from '../../domain/ports.js';

/** gw.config.updated.<owner> with the new version (never a value) and gw.audit.auto_config. */
export function natsConfigEvents(nc: NatsConnection, audit: PublishAudit): ConfigEvents {
  return {
    configUpdated(ownerId, version) {
      publishEvent(nc, SUBJECTS.configUpdated(ownerId), events.ConfigUpdated, {
        ownerId,
        version,
        at: new Date().toISOString(),
      });
    },
    audit,
  };
}
