import type { KeypoolDeps } from './ports/deps.js';

/** Restores sleeping keys (POST /x-conf DelKeys): the given ones, or all of the owner's. */
export async function wakeKeys(
  deps: KeypoolDeps,
  input: { ownerId: bigint; keyIds: readonly bigint[] },
): Promise<{ woken: number; version: bigint }> {
  const woken = await deps.sleeps.clear(
    input.ownerId,
    input.keyIds.length === 0 ? 'all' : input.keyIds,
    deps.clock.now(),
  );
  const version = await deps.store.transaction((tx) => tx.bumpVersion(input.ownerId));
  deps.events.keysChanged(input.ownerId, version);
  return { woken, version };
}
