import type { KeypoolDeps } from './ports/deps.js';

/** POST /x-conf LoadKeys: a new pool version, so every proxy fetches its snapshot again. */
export async function reloadKeys(deps: KeypoolDeps, input: { ownerId: bigint }): Promise<bigint> {
  const version = await deps.store.transaction((tx) => tx.bumpVersion(input.ownerId));
  deps.events.keysChanged(input.ownerId, version);
  return version;
}
