import type { Executor } from './executor.js';
import { DrizzleAccounts } from './accounts.js';
import { DrizzleLedger } from './ledger.js';
import { DrizzleLots } from './lots.js';

/**
 * The reads the first requests make (authenticate a key, load a caller and its ancestors, check a
 * name, read balances and a ledger key), run once on a connection before the replica reports
 * ready: the connection is open, PostgreSQL has loaded the tables it needs, and the code that
 * builds and reads these statements has run. Read-only: it changes nothing.
 */
export async function warmAccountReads(db: Executor, now: Date): Promise<void> {
  const accounts = new DrizzleAccounts(db);
  const rootId = (await accounts.findRoot())?.id ?? 0n;
  await accounts.findById(rootId);
  await accounts.findByKeyHash('');
  await accounts.findByIds([rootId]);
  await accounts.nameOrEmailTaken(rootId, '', '');
  await accounts.chargeRates([rootId]);
  await new DrizzleLots(db).live([rootId], now);
  await new DrizzleLedger(db).find('', 'mint');
}
