import type { SleepingKey } from './model.js';
import type { KeypoolDeps } from './ports.js';

/** Keys the proxies put to sleep, with the remaining sleep, read from Redis. */
export async function listSleepingKeys(
  deps: KeypoolDeps,
  input: { ownerId: bigint },
): Promise<SleepingKey[]> {
  return (await deps.sleeps.list(input.ownerId)).sort((a, b) => (a.keyId < b.keyId ? -1 : 1));
}
