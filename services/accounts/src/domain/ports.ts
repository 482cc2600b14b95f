import type { AccountRecord, CreditLot, NewAccount } from './model.js';

export type LedgerKind = 'mint' | 'grant' | 'clawback' | 'usage' | 'refund' | 'fee' | 'expire';

export interface LedgerRow {
  idempotencyKey: string;
  kind: LedgerKind;
  accountId: bigint;
  counterpartyId: bigint | null;
  amountNano: bigint;
}

/** Reads that need no transaction. */
export interface AccountsStore {
  transaction<T>(work: (tx: AccountsTx) => Promise<T>): Promise<T>;
  findByKeyHash(keyHash: string): Promise<AccountRecord | undefined>;
  findById(id: bigint): Promise<AccountRecord | undefined>;
  findRoot(): Promise<AccountRecord | undefined>;
  /** Identifier lookup among rows whose DNA starts with dnaPrefix. */
  findOne(where: AccountLookup, dnaPrefix: string): Promise<AccountRecord | undefined>;
  liveLots(accountId: bigint, now: Date): Promise<CreditLot[]>;
}

export type AccountLookup =
  | { by: 'id'; id: bigint }
  | { by: 'name'; nameKey: string }
  | { by: 'email'; emailKey: string }
  | { by: 'dna'; dna: string };

/** Writes, always inside one transaction so money moves atomically. */
export interface AccountsTx {
  lockAccount(id: bigint): Promise<AccountRecord | undefined>;
  nameOrEmailTaken(nameKey: string, emailKey: string, exceptId?: bigint): Promise<'name' | 'email' | undefined>;
  insertAccount(account: NewAccount & { nameKey: string; emailKey: string }, parentDna: string): Promise<AccountRecord>;
  setKey(id: bigint, key: { hash: string; prefix: string; last4: string }): Promise<void>;
  keyHashTaken(hash: string): Promise<boolean>;
  /** Inserts a ledger row; undefined when its idempotency key was already used. */
  insertLedger(row: LedgerRow): Promise<bigint | undefined>;
  /** Unexpired lots with something left, earliest expiry first, locked for this transaction. */
  lockSpendableLots(accountId: bigint, now: Date): Promise<CreditLot[]>;
  /** Conditional decrement: false when the lot no longer holds amount. */
  takeFromLot(lotId: bigint, amountNano: bigint): Promise<boolean>;
  insertLot(lot: { accountId: bigint; amountNano: bigint; expiresAt: Date; ledgerId: bigint }): Promise<void>;
}

export interface AccountEvents {
  accountChanged(accountId: bigint, reason: string, keyHash?: string): void;
}

export interface Clock {
  now(): Date;
}

export interface AccountsDeps {
  store: AccountsStore;
  events: AccountEvents;
  clock: Clock;
}
