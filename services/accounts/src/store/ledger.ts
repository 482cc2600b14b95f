import { column } from '@gw/kit';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Ledger, LedgerKind, LedgerRow } from '../domain/ports/ledger.js';
import type { Executor } from './executor.js';
import { ledger } from './schema.js';

/** The money ledger over drizzle, inside one transaction. */
export class DrizzleLedger implements Ledger {
  constructor(private readonly db: Executor) {}

  async insert(row: LedgerRow, at: Date) {
    const [inserted] = await this.db
      .insert(ledger)
      .values({ ...row, createdAt: at })
      .onConflictDoNothing()
      .returning({ id: ledger.id });
    return inserted?.id;
  }

  async insertMany(rows: readonly LedgerRow[], at: Date) {
    if (rows.length === 0) {
      return;
    }
    await this.db.execute(sql`
      INSERT INTO accounts.ledger (idempotency_key, kind, account_id, counterparty_id, amount_nano,
             description, created_at)
      SELECT *, ${at}::timestamptz FROM unnest(
        ${column(rows, (row) => row.idempotencyKey)}::text[],
        ${column(rows, (row) => row.kind)}::text[],
        ${column(rows, (row) => String(row.accountId))}::bigint[],
        ${column(rows, (row) => (row.counterpartyId === null ? null : String(row.counterpartyId)))}::bigint[],
        ${column(rows, (row) => String(row.amountNano))}::bigint[],
        ${column(rows, (row) => row.description ?? null)}::text[])`);
  }

  async findMany(keys: readonly string[], kind: LedgerKind) {
    const found = new Map<string, { accountId: bigint; amountNano: bigint }>();
    if (keys.length === 0) {
      return found;
    }
    const rows = await this.db
      .select({ key: ledger.idempotencyKey, accountId: ledger.accountId, amountNano: ledger.amountNano })
      .from(ledger)
      .where(and(sql`${ledger.idempotencyKey} = ANY(${column(keys, String)}::text[])`, eq(ledger.kind, kind)))
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
