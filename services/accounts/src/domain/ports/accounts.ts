import type { AccountRecord, NewAccount } from '../model.js';

/**
 * One account by a unique column. Names and e-mails are unique within a name scope (the owner
 * whose tenant they live in, see tenancy.ts), so a lookup by either names its scope.
 */
export type AccountLookup =
  | { by: 'id'; id: bigint }
  | { by: 'name'; nameKey: string; scope: bigint }
  | { by: 'email'; emailKey: string; scope: bigint }
  | { by: 'dna'; dna: string };

export type OrderColumn = 'id' | 'name' | 'email' | 'level' | 'dna' | 'created_at' | 'updated_at';

/** A list query: always confined to rows whose DNA strictly extends scopeDna. */
export interface ListQuery {
  scopeDna: string;
  /** Direct children of this account only. */
  parentId?: bigint;
  id?: bigint;
  /** Substring of the normalised name (matched literally: no wildcards). */
  nameContains?: string;
  emailKey?: string;
  /** Rows in the subtree of this DNA path (with its trailing dot). */
  dnaPrefix?: string;
  level?: number;
  gear?: number;
  role?: number;
  tier?: number;
  factor?: number;
  order: { column: OrderColumn; descending: boolean };
  limit: number;
  offset: number;
}

export interface KeyUse {
  accountId: bigint;
  keyHash: string;
  usedAt: Date;
}

/** What Debit needs beyond the record: deleted rows too (usage after delete). */
export interface DebitTarget {
  account: AccountRecord;
  deleted: boolean;
  /** 'YYYY-MM-01' of the month whose SoftLimit alert was sent, or null. */
  softAlertMonth: string | null;
}

export interface SpendUpdate {
  daySpendNano: bigint;
  dayStart: string;
  monthSpendNano: bigint;
  monthStart: string;
  spendBlocked: boolean;
  softAlertMonth: string | null;
}

/** What one usage charge writes on its account row: the new spend, and the debt it adds. */
export interface AccountCharge {
  accountId: bigint;
  spend: SpendUpdate;
  addDebtNano: bigint;
}

/** Fields an update writes (keys recomputed for name and e-mail). */
export type AccountPatch = Partial<
  Omit<
    AccountRecord,
    | 'id'
    | 'dna'
    | 'parentId'
    | 'ownerId'
    | 'createdAt'
    | 'updatedAt'
    | 'isRoot'
    | 'isOwner'
    | 'debtNano'
    | 'daySpendNano'
    | 'dayStart'
    | 'monthSpendNano'
    | 'monthStart'
  >
> & { nameKey?: string; emailKey?: string };

/**
 * A write that may collide with another account's name or e-mail, or find no live row: the
 * store reports which, the domain words the refusal.
 */
export type AccountWrite =
  { written: AccountRecord } | { refused: 'name_taken' | 'email_taken' | 'not_found' };

/** Lookups of live accounts, the same inside a transaction and outside one. */
export interface AccountReads {
  findById(id: bigint): Promise<AccountRecord | undefined>;
  findByKeyHash(keyHash: string): Promise<AccountRecord | undefined>;
  findRoot(): Promise<AccountRecord | undefined>;
  /** Live accounts with these ids, in no particular order (an account's ancestors). */
  findByIds(ids: readonly bigint[]): Promise<AccountRecord[]>;
  /** The ids of the live accounts below this DNA path (the account itself left out). */
  descendantIds(dna: string): Promise<bigint[]>;
  /** Rates and Factor of these accounts, deleted ones included; unknown ids are left out. */
  chargeRates(ids: readonly bigint[]): Promise<Array<{ id: bigint; rates: number; factor: number }>>;
  /** Identifier lookup among rows whose DNA starts with dnaPrefix. */
  findOne(where: AccountLookup, dnaPrefix: string): Promise<AccountRecord | undefined>;
  /** One page of live accounts matching the query, and how many match in all. */
  list(query: ListQuery): Promise<{ rows: AccountRecord[]; total: number }>;
}

/** The account rows outside a transaction: reads, and key last-use times (no money). */
export interface AccountsRepository extends AccountReads {
  /** Moves key_last_used_at forward for uses of keys that are still current; returns rows changed. */
  recordKeyUses(uses: readonly KeyUse[]): Promise<number>;
}

/** The account rows inside a transaction: reads, row locks and writes. */
export interface AccountWrites extends AccountReads {
  lock(id: bigint): Promise<AccountRecord | undefined>;
  /** Locks these accounts for a usage charge, deleted or not, in id order; unknown ids are left out. */
  lockForDebit(ids: readonly bigint[]): Promise<DebitTarget[]>;
  /** Whether the name or e-mail is used in this name scope (by any row, deleted ones freed). */
  nameOrEmailTaken(
    scope: bigint,
    nameKey: string,
    emailKey: string,
    exceptId?: bigint,
  ): Promise<'name' | 'email' | undefined>;
  /** Inserts the account, created and updated `at`. */
  insert(
    account: NewAccount & { nameKey: string; emailKey: string },
    parentDna: string,
    at: Date,
  ): Promise<AccountWrite>;
  update(id: bigint, patch: AccountPatch, at: Date): Promise<AccountWrite>;
  setKey(id: bigint, key: { hash: string; prefix: string; last4: string }, at: Date): Promise<void>;
  keyHashTaken(hash: string): Promise<boolean>;
  /** Writes many usage charges' spend and debt, one row each, in one write. */
  applyCharges(charges: readonly AccountCharge[], at: Date): Promise<void>;
  /** Lowers the account's debt by up to amountNano; returns how much it lowered it. */
  absorbDebt(accountId: bigint, amountNano: bigint): Promise<bigint>;
  addDebt(accountId: bigint, amountNano: bigint): Promise<void>;
  /** Live direct children (delete refuses an account that has some). */
  liveChildren(id: bigint): Promise<Array<{ id: bigint; name: string }>>;
  /** Soft delete: the row leaves every lookup and frees its name, e-mail and key. */
  markDeleted(id: bigint, at: Date): Promise<void>;
}
