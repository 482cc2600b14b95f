import { applyConfigChanges, SECRET_KEYS, type ConfigKey } from './config-values.js';
import { checkMailServer, MAIL_SERVER_KEYS } from './mail-server-check.js';
import type { ConfigDeps } from './ports.js';
import { ownerConfig, passAad, type OwnerConfig } from './owner-config.js';

export interface UpdateConfigInput {
  ownerId: bigint;
  values: Record<string, string>;
  /** POST /x-conf semantics for MODEL_LIMITS. */
  mergeLimits: boolean;
  /** Root's own configuration: its mail server may be on loopback or a private network. */
  ownerIsRoot: boolean;
}

/**
 * Validates every given key against the stored values, then stores them all in one
 * transaction with a version bump; any invalid value leaves the stored configuration as it was.
 */
export async function updateConfig(deps: ConfigDeps, input: UpdateConfigInput): Promise<OwnerConfig> {
  const { version, stored } = await deps.store.transaction(async (tx) => {
    const current = new Map(Object.entries(await tx.lockOwner(input.ownerId)));
    const next = applyConfigChanges(Object.fromEntries(current), input.values, {
      mergeLimits: input.mergeLimits,
    });
    if (MAIL_SERVER_KEYS.some((key) => key in next)) {
      const effective = new Map(current);
      for (const [key, value] of Object.entries(next)) {
        if (value === undefined) {
          effective.delete(key);
        } else {
          effective.set(key, value);
        }
      }
      await checkMailServer(deps, Object.fromEntries(effective), input.ownerIsRoot);
    }
    const removed: string[] = [];
    for (const [key, value] of Object.entries(next)) {
      if (value === undefined) {
        removed.push(key);
        current.delete(key);
        continue;
      }
      const storedValue = SECRET_KEYS.includes(key as ConfigKey)
        ? deps.box.seal(value, passAad(input.ownerId))
        : value;
      await tx.put(input.ownerId, key, storedValue);
      current.set(key, storedValue);
    }
    await tx.remove(input.ownerId, removed);
    return { version: await tx.bumpVersion(input.ownerId), stored: Object.fromEntries(current) };
  });
  deps.events.configUpdated(input.ownerId, version);
  return ownerConfig(deps.box, input.ownerId, version, stored, false);
}
