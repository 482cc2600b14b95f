import type { SystemSettings } from './ports/config.js';
import type { ConfigDeps } from './ports/deps.js';

/** The system-wide settings: one set for the whole gateway, LogEnable on until root turns it off. */
export function getSystemSettings(deps: ConfigDeps): Promise<SystemSettings> {
  return deps.store.systemSettings();
}

/**
 * Changes the given settings with a version bump, then publishes `gw.system.updated` (every edge
 * and proxy reads the settings again), and logs update_config (target 0: the whole gateway).
 * That only root may is the edge's check.
 */
export async function updateSystemSettings(
  deps: ConfigDeps,
  change: { logEnable?: boolean },
  by: { operatorId: bigint; ipAddress: string },
): Promise<SystemSettings> {
  const settings = await deps.store.updateSystemSettings(change, deps.clock.now());
  deps.events.systemUpdated(settings.version);
  if (change.logEnable !== undefined) {
    deps.events.audit({
      action: 'update_config',
      operatorId: by.operatorId,
      targetId: 0n,
      details: `system LogEnable=${String(change.logEnable)}`,
      ipAddress: by.ipAddress,
    });
  }
  return settings;
}
