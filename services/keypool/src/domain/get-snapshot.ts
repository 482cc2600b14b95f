import type { KeyView } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';
import { plainView } from './secrets.js';

/**
 * Every key of the owner with plaintext secrets, for the proxies (internal gRPC only). The
 * version is read first: a change racing this read makes the proxy fetch again on its event.
 * ownerIsRoot tells the proxies which connect-time rule applies (docs/decisions.md §7).
 */
export async function getSnapshot(
  deps: KeypoolDeps,
  input: { ownerId: bigint },
): Promise<{ version: bigint; ownerIsRoot: boolean; keys: KeyView[] }> {
  const { version, ownerIsRoot } = await deps.store.pool(input.ownerId);
  const records = await deps.store.all(input.ownerId);
  return { version, ownerIsRoot, keys: records.map((record) => plainView(deps.box, record)) };
}
