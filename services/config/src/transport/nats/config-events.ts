import { publishEvent, SUBJECTS, type NatsConnection, type PublishAudit } from '@gw/kit';
import { events } from '@gw/proto';
import type { ConfigEvents } from '../../domain/ports/deps.js';

/**
 * gw.config.updated.<owner> and gw.system.updated with the new version (never a value), and
 * gw.audit.auto_config, update_config and delete_config.
 */
export function natsConfigEvents(nc: NatsConnection, audit: PublishAudit): ConfigEvents {
  return {
    configUpdated(ownerId, version) {
      publishEvent(nc, SUBJECTS.configUpdated(ownerId), events.ConfigUpdated, {
        ownerId,
        version,
        at: new Date().toISOString(),
      });
    },
    systemUpdated(version) {
      publishEvent(nc, SUBJECTS.systemUpdated, events.SystemSettingsUpdated, {
        version,
        at: new Date().toISOString(),
      });
    },
    audit,
  };
}
