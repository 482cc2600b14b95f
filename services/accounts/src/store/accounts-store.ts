import { transactionWithinDeadline, type Database } from '@gw/kit';
import type { AccountsStore, AccountsTx } from '../domain/ports/deps.js';
import { DrizzleAccounts } from './accounts.js';
import { DrizzleConservationReport } from './conservation.js';
import type { Executor } from './executor.js';
import { DrizzleIdempotencyKeys } from './idempotency.js';
import { DrizzleLedger } from './ledger.js';
import { DrizzleLots } from './lots.js';
import { DrizzleOperationLog } from './operation-log.js';

function inTransaction(tx: Executor): AccountsTx {
  return {
    accounts: new DrizzleAccounts(tx),
    lots: new DrizzleLots(tx),
    ledger: new DrizzleLedger(tx),
    idempotency: new DrizzleIdempotencyKeys(tx),
  };
}

/** The accounts stores over drizzle (PostgreSQL), one module per aggregate. */
export class DrizzleAccountsStore implements AccountsStore {
  readonly accounts: DrizzleAccounts;
  readonly lots: DrizzleLots;
  readonly operations: DrizzleOperationLog;
  readonly conservation: DrizzleConservationReport;

  constructor(private readonly db: Database) {
    this.accounts = new DrizzleAccounts(db);
    this.lots = new DrizzleLots(db);
    this.operations = new DrizzleOperationLog(db);
    this.conservation = new DrizzleConservationReport(db);
  }

  transaction<T>(work: (tx: AccountsTx) => Promise<T>): Promise<T> {
    return transactionWithinDeadline(this.db, (tx) => work(inTransaction(tx)));
  }
}
