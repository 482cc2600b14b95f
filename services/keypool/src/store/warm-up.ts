import type { Database } from '@gw/kit';
import { DrizzleKeysStore } from './keys-store.js';

/**
 * The reads the first requests make (an owner's pool, its version, one key), run once on a
 * connection before the replica reports ready. Read-only: it changes nothing.
 */
export async function warmKeyReads(db: Database): Promise<void> {
  const store = new DrizzleKeysStore(db);
  await store.all(0n);
  await store.pool(0n);
  await store.find(0n, 0n);
}
