import { applyConfigChanges, SECRET_KEYS, type ConfigKey } from './config-values.js';
import { checkMailServer, MAIL_SERVER_KEYS } from './mail-server-check.js';
import type { ConfigDeps } from './ports/deps.js';
import { ownerConfig, passAad, type OwnerConfig } from './owner-config.js';

export interface UpdateConfigInput {
  ownerId: bigint;
  values: Record<string, string>;
  /** POST /x-conf semantics for MODEL_LIMITS. */
  mergeLimits: boolean;
  /** Root's own configuration: its mail server may be on loopback or a private network. */
  ownerIsRoot: boolean;
  /** Who changes it and from where, for the operation log. */
  operatorId: bigint;
  ipAddress: string;
}

/** What an update_config entry says: the key names set and reset, never a value. */
function changedKeys(set: readonly string[], reset: readonly string[]): string {
  const parts = [];
  if (set.length > 0) {
    parts.push(`set ${[...set].sort().join(', ')}`);
  }
  if (reset.length > 0) {
    parts.push(`reset ${[...reset].sort().join(', ')}`);
  }
  return parts.length === 0 ? 'nothing changed' : parts.join('; ');
}

/**
 * Validates every given key against the stored values, then stores them all in one
 * transaction with a version bump; any invalid value leaves the stored configuration as it was.
 * The change is then logged as update_config with the key names only (EMAIL_PASS's value never).
 */
export async function updateConfig(deps: ConfigDeps, input: UpdateConfigInput): Promise<OwnerConfig> {
  const now = deps.clock.now();
  const { version, stored, set, removed } = await deps.store.transaction(async (tx) => {
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
    const set: string[] = [];
    for (const [key, value] of Object.entries(next)) {
      if (value === undefined) {
        removed.push(key);
        current.delete(key);
        continue;
      }
      const storedValue = SECRET_KEYS.includes(key as ConfigKey)
        ? deps.box.seal(value, passAad(input.ownerId))
        : value;
      await tx.put(input.ownerId, key, storedValue, now);
      current.set(key, storedValue);
      set.push(key);
    }
    await tx.remove(input.ownerId, removed);
    return {
      version: await tx.bumpVersion(input.ownerId),
      stored: Object.fromEntries(current),
      set,
      removed,
    };
  });
  deps.events.configUpdated(input.ownerId, version);
  deps.events.audit({
    action: 'update_config',
    operatorId: input.operatorId,
    targetId: input.ownerId,
    details: changedKeys(set, removed),
    ipAddress: input.ipAddress,
  });
  return ownerConfig(deps.box, input.ownerId, version, stored, false);
}
