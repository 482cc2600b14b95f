import type { AccountsStore, AccountsTx } from '../../src/domain/ports/deps.js';
import { MemoryAccounts } from './accounts.js';
import { MemoryConservationReport } from './conservation.js';
import { MemoryIdempotencyKeys } from './idempotency.js';
import { MemoryLedger } from './ledger.js';
import { MemoryLots } from './lots.js';
import { MemoryOperationLog } from './operation-log.js';
import { emptyTables, type Tables } from './tables.js';

/**
 * The accounts store ports in memory, with the semantics of the SQL stores: transactions run
 * one at a time (as the row locks serialise money movements), each on a copy of the tables
 * that replaces them only when the work succeeds.
 */
export class MemoryAccountsStore implements AccountsStore {
  private committed: Tables = emptyTables();
  private queue: Promise<unknown> = Promise.resolve();
  readonly accounts: MemoryAccounts;
  readonly lots: MemoryLots;
  readonly operations: MemoryOperationLog;
  readonly conservation: MemoryConservationReport;

  constructor() {
    const tables = () => this.committed;
    this.accounts = new MemoryAccounts(tables);
    this.lots = new MemoryLots(tables);
    this.operations = new MemoryOperationLog(tables);
    this.conservation = new MemoryConservationReport(tables);
  }

  transaction<T>(work: (tx: AccountsTx) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      const working = structuredClone(this.committed);
      const tables = () => working;
      const result = await work({
        accounts: new MemoryAccounts(tables),
        lots: new MemoryLots(tables),
        ledger: new MemoryLedger(tables),
        idempotency: new MemoryIdempotencyKeys(tables),
      });
      this.committed = working;
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Every table as it is now, to compare before and after a refused operation. */
  tables(): Tables {
    return structuredClone(this.committed);
  }
}
