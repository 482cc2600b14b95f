import type { SleepingKey } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';

/**
 * Keys the proxies put to sleep, and keys asleep for one model only (after repeated refusals of
 * that model), with the remaining sleep, read from Redis: by key, a whole key before its models.
 */
export async function listSleepingKeys(
  deps: KeypoolDeps,
  input: { ownerId: bigint },
): Promise<SleepingKey[]> {
  return (await deps.sleeps.list(input.ownerId, deps.clock.now())).sort((a, b) =>
    a.keyId === b.keyId ? a.model.localeCompare(b.model) : a.keyId < b.keyId ? -1 : 1,
  );
}
