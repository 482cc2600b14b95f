import type { CreditLot } from '../model.js';

export interface NewLot {
  accountId: bigint;
  amountNano: bigint;
  expiresAt: Date;
  /** The ledger row that granted it. */
  ledgerId: bigint;
}

/** Credit lots, read the same inside a transaction and outside one. */
export interface LotReads {
  /** Unexpired lots with something left of these accounts, earliest expiry first (then id). */
  live(accountIds: readonly bigint[], now: Date): Promise<CreditLot[]>;
}

/** An amount taken from one lot. */
export interface LotTake {
  lotId: bigint;
  takeNano: bigint;
}

/** Credit lots inside a transaction. */
export interface LotWrites extends LotReads {
  /** These accounts' live lots in the same order, locked for this transaction. */
  lockSpendable(accountIds: readonly bigint[], now: Date): Promise<CreditLot[]>;
  /**
   * Conditional decrements, in one write: false when some lot no longer held its amount. The
   * others may have been taken then, so the caller must abandon the transaction.
   */
  take(takes: readonly LotTake[]): Promise<boolean>;
  /** Inserts a lot created `at`. */
  insert(lot: NewLot, at: Date): Promise<void>;
}
