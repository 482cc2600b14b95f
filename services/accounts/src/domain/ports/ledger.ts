/**
 * `debt`: a deleted account's unpaid usage moved to its parent (two legs, like a grant); the
 * other kinds as their names say.
 */
export type LedgerKind = 'mint' | 'grant' | 'clawback' | 'usage' | 'refund' | 'fee' | 'expire' | 'debt';

export interface LedgerRow {
  idempotencyKey: string;
  kind: LedgerKind;
  accountId: bigint;
  counterpartyId: bigint | null;
  amountNano: bigint;
  /** What the row is for (a usage row: the model); never a secret. */
  description?: string;
}

/** The money ledger, inside a transaction: one row per balance change, unique per (key, account, kind). */
export interface Ledger {
  /** Inserts a row created `at`; undefined when (key, account, kind) is already recorded. */
  insert(row: LedgerRow, at: Date): Promise<bigint | undefined>;
  /**
   * Inserts rows created `at` in one statement. A row whose (key, account, kind) is already recorded
   * fails the statement, and with it the transaction: the balance changes beside it must not commit
   * without their rows.
   */
  insertMany(rows: readonly LedgerRow[], at: Date): Promise<void>;
  /** The earliest row of each of these idempotency keys of this kind, on any account. */
  findMany(
    keys: readonly string[],
    kind: LedgerKind,
  ): Promise<Map<string, { accountId: bigint; amountNano: bigint }>>;
  /** The earliest row of this idempotency key and kind, on any account. */
  find(
    idempotencyKey: string,
    kind: LedgerKind,
  ): Promise<{ id: bigint; accountId: bigint; amountNano: bigint } | undefined>;
}
