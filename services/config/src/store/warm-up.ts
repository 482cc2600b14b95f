import type { Database } from '@gw/kit';
import { DrizzleConfigStore } from './config-store.js';

/**
 * The reads the first requests make (an owner's values and version, the system settings), run
 * once on a connection before the replica reports ready. Read-only: it changes nothing.
 */
export async function warmConfigReads(db: Database): Promise<void> {
  const store = new DrizzleConfigStore(db);
  await store.values(0n);
  await store.version(0n);
  await store.systemSettings();
}
