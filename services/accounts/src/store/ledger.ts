import { and, asc, eq, sql } from 'drizzle-orm';
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
