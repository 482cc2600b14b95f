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

/** Credit lots inside a transaction. */
export interface LotWrites extends LotReads {
  /** The account's live lots in the same order, locked for this transaction. */
  lockSpendable(accountId: bigint, now: Date): Promise<CreditLot[]>;
  /** Conditional decrement: false when the lot no longer holds amount. */
  take(lotId: bigint, amountNano: bigint): Promise<boolean>;
  insert(lot: NewLot): Promise<void>;
}
