import type { Ledger, LedgerKind, LedgerRow } from '../../src/domain/ports/ledger.js';
import { draw, type Tables } from './tables.js';

/** The ledger in memory, unique per (idempotency key, account, kind) like the table. */
export class MemoryLedger implements Ledger {
  constructor(private readonly tables: () => Tables) {}

  async insert(row: LedgerRow, at: Date) {
    const tables = this.tables();
    const clash = tables.ledger.some(
      (entry) =>
        entry.idempotencyKey === row.idempotencyKey &&
        entry.accountId === row.accountId &&
        entry.kind === row.kind,
    );
    if (clash) {
      return undefined;
    }
    const id = draw(tables, 'ledger');
    tables.ledger.push({ ...row, id, createdAt: at });
    return id;
  }

  async insertMany(rows: readonly LedgerRow[], at: Date) {
    for (const row of rows) {
      if ((await this.insert(row, at)) === undefined) {
        throw new Error(
          `ledger: ${row.kind} ${row.idempotencyKey} of account ${row.accountId} already recorded`,
        );
      }
    }
  }

  async findMany(keys: readonly string[], kind: LedgerKind) {
    const found = new Map<string, { accountId: bigint; amountNano: bigint }>();
    for (const key of keys) {
      const entry = await this.find(key, kind);
      if (entry && !found.has(key)) {
        found.set(key, { accountId: entry.accountId, amountNano: entry.amountNano });
      }
    }
    return found;
  }

  async find(idempotencyKey: string, kind: LedgerKind) {
    const entry = this.tables().ledger.find(
      (row) => row.idempotencyKey === idempotencyKey && row.kind === kind,
    );
    return entry && { id: entry.id, accountId: entry.accountId, amountNano: entry.amountNano };
  }
}
