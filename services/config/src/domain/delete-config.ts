import { CONFIG_KEYS, isConfigKey } from './config-values.js';
import { invalid } from './invalid.js';
import type { ConfigDeps } from './ports/deps.js';
import { ownerConfig, type OwnerConfig } from './owner-config.js';

/**
 * DELETE /x-config: the listed keys go back to their defaults (version bumped, event sent, logged
 * as delete_config with the key names).
 */
export async function deleteConfig(
  deps: ConfigDeps,
  input: { ownerId: bigint; keys: readonly string[]; operatorId: bigint; ipAddress: string },
): Promise<OwnerConfig> {
  if (input.keys.length === 0) {
    invalid('keys', 'list at least one configuration key');
  }
  for (const key of input.keys) {
    if (!isConfigKey(key)) {
      invalid(`keys.${key.slice(0, 64)}`, `is not a configuration key (allowed: ${CONFIG_KEYS.join(', ')})`);
    }
  }
  const { version, stored } = await deps.store.transaction(async (tx) => {
    const current = await tx.lockOwner(input.ownerId);
    await tx.remove(input.ownerId, input.keys);
    const stored = Object.fromEntries(Object.entries(current).filter(([key]) => !input.keys.includes(key)));
    return { version: await tx.bumpVersion(input.ownerId), stored };
  });
  deps.events.configUpdated(input.ownerId, version);
  deps.events.audit({
    action: 'delete_config',
    operatorId: input.operatorId,
    targetId: input.ownerId,
    details: `reset ${[...new Set(input.keys)].sort().join(', ')}`,
    ipAddress: input.ipAddress,
  });
  return ownerConfig(deps.box, input.ownerId, version, stored, false);
}
