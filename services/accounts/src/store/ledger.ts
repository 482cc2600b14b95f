import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Ledger, LedgerKind, LedgerRow } from '../domain/ports/ledger.js';
import type { Executor } from './executor.js';
import { ledger } from './schema.js';

/** The money ledger over drizzle, inside one transaction. */
export class DrizzleLedger implements Ledger {
  constructor(private readonly db: Executor) {}

  async insert(row: LedgerRow) {
    const [inserted] = await this.db
      .insert(ledger)
      .values({ ...row, createdAt: sql`now()` })
      .onConflictDoNothing()
      .returning({ id: ledger.id });
    return inserted?.id;
  }

  async insertMany(rows: readonly LedgerRow[]) {
    if (rows.length > 0) {
      await this.db
        .insert(ledger)
        .values(rows.map((row) => ({ ...row, createdAt: sql`now()` })))
        .onConflictDoNothing();
    }
  }

  async findMany(keys: readonly string[], kind: LedgerKind) {
    const found = new Map<string, { accountId: bigint; amountNano: bigint }>();
    if (keys.length === 0) {
      return found;
    }
    const rows = await this.db
      .select({ key: ledger.idempotencyKey, accountId: ledger.accountId, amountNano: ledger.amountNano })
      .from(ledger)
      .where(and(inArray(ledger.idempotencyKey, [...keys]), eq(ledger.kind, kind)))
      .orderBy(asc(ledger.id));
    for (const row of rows) {
      if (!found.has(row.key)) {
        found.set(row.key, { accountId: row.accountId, amountNano: row.amountNano });
      }
    }
    return found;
  }

  async find(idempotencyKey: string, kind: LedgerKind) {
    const [row] = await this.db
      .select({ id: ledger.id, accountId: ledger.accountId, amountNano: ledger.amountNano })
      .from(ledger)
      .where(and(eq(ledger.idempotencyKey, idempotencyKey), eq(ledger.kind, kind)))
      .orderBy(asc(ledger.id))
      .limit(1);
    return row;
  }
}
