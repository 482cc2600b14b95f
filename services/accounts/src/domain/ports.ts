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
  /** Unexpired lots of several accounts at once (list pages). */
  liveLotsFor(accountIds: readonly bigint[], now: Date): Promise<CreditLot[]>;
  /** One page of live accounts matching the query, and how many match in all. */
  listAccounts(query: ListQuery): Promise<{ rows: AccountRecord[]; total: number }>;
  /** Inserts one log entry; false when its event id was already recorded. */
  insertOperation(entry: OperationRecord): Promise<boolean>;
  listOperations(
    query: OperationQuery,
  ): Promise<{ rows: Array<OperationRecord & { id: bigint }>; total: number }>;
  /** Moves key_last_used_at forward for uses of keys that are still current; returns rows changed. */
  recordKeyUses(uses: readonly KeyUse[]): Promise<number>;
  /** The conservation sums, overall and per owner (root's audit). */
  conservationTotals(now: Date): Promise<ConservationRow[]>;
}

export interface KeyUse {
  accountId: bigint;
  keyHash: string;
  usedAt: Date;
}

export interface OperationRecord {
  eventId: string;
  action: string;
  operatorId: bigint;
  targetId: bigint;
  details: string;
  ipAddress: string;
  status: string;
  createdAt: Date;
}

export interface OperationQuery {
  /** Entries this account did or that targeted it. */
  accountId: bigint;
  action?: string;
  targetId?: bigint;
  status?: string;
  limit: number;
  offset: number;
}

/** Sums per owner tree, in nano-USD (see domain/check-conservation.ts). */
export interface ConservationRow {
  ownerId: bigint;
  mintedNano: bigint;
  transfersInNano: bigint;
  lotsNano: bigint;
  debtNano: bigint;
  usageNano: bigint;
  feesNano: bigint;
  expiredNano: bigint;
}

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

/** What Debit needs beyond the record: deleted rows too (usage after delete), and spend dates. */
export interface DebitTarget {
  account: AccountRecord;
  deleted: boolean;
  /** 'YYYY-MM-DD' or null. */
  dayStart: string | null;
  monthStart: string | null;
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

export interface StoredIdempotency {
  requestHash: string;
  operation: string;
  response: string;
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
    | 'monthSpendNano'
  >
> & { nameKey?: string; emailKey?: string };

export type AccountLookup =
  | { by: 'id'; id: bigint }
  | { by: 'name'; nameKey: string }
  | { by: 'email'; emailKey: string }
  | { by: 'dna'; dna: string };

/** Writes, always inside one transaction so money moves atomically. */
export interface AccountsTx {
  lockAccount(id: bigint): Promise<AccountRecord | undefined>;
  nameOrEmailTaken(
    nameKey: string,
    emailKey: string,
    exceptId?: bigint,
  ): Promise<'name' | 'email' | undefined>;
  insertAccount(
    account: NewAccount & { nameKey: string; emailKey: string },
    parentDna: string,
  ): Promise<AccountRecord>;
  setKey(id: bigint, key: { hash: string; prefix: string; last4: string }): Promise<void>;
  keyHashTaken(hash: string): Promise<boolean>;
  /** Inserts a ledger row; undefined when its idempotency key was already used. */
  insertLedger(row: LedgerRow): Promise<bigint | undefined>;
  /** Unexpired lots with something left, earliest expiry first, locked for this transaction. */
  lockSpendableLots(accountId: bigint, now: Date): Promise<CreditLot[]>;
  /** Conditional decrement: false when the lot no longer holds amount. */
  takeFromLot(lotId: bigint, amountNano: bigint): Promise<boolean>;
  insertLot(lot: { accountId: bigint; amountNano: bigint; expiresAt: Date; ledgerId: bigint }): Promise<void>;
  /** Lowers the account's debt by up to amountNano; returns how much it lowered it. */
  absorbDebt(accountId: bigint, amountNano: bigint): Promise<bigint>;
  addDebt(accountId: bigint, amountNano: bigint): Promise<void>;
  findOne(where: AccountLookup, dnaPrefix: string): Promise<AccountRecord | undefined>;
  liveLots(accountId: bigint, now: Date): Promise<CreditLot[]>;
  updateAccount(id: bigint, patch: AccountPatch): Promise<AccountRecord>;
  /** Live direct children (delete refuses an account that has some). */
  liveChildren(id: bigint): Promise<Array<{ id: bigint; name: string }>>;
  /** Soft delete: the row leaves every lookup and frees its name, e-mail and key. */
  markDeleted(id: bigint): Promise<void>;
  /** Locks an account for Debit, deleted or not. */
  lockForDebit(id: bigint): Promise<DebitTarget | undefined>;
  setSpend(id: bigint, spend: SpendUpdate): Promise<void>;
  /** The ledger row of this idempotency key and kind, on any account. */
  findLedger(
    idempotencyKey: string,
    kind: LedgerKind,
  ): Promise<{ id: bigint; accountId: bigint; amountNano: bigint } | undefined>;
  /**
   * Claims (caller, key) for this request; undefined when the claim is new, else what the first
   * request stored. A concurrent claim of the same key waits for the first transaction.
   */
  claimIdempotencyKey(
    callerId: bigint,
    key: string,
    requestHash: string,
    operation: string,
  ): Promise<StoredIdempotency | undefined>;
  saveIdempotencyResponse(callerId: bigint, key: string, response: string): Promise<void>;
}

/** Alert mails are sent by the mailer; accounts only enqueues them. */
export interface SpendAlerts {
  /** The first SoftLimit crossing of `month` ('YYYY-MM'); enqueued at most once per month. */
  softLimitReached(accountId: bigint, month: string): Promise<void>;
}

export interface AccountEvents {
  accountChanged(accountId: bigint, reason: string, keyHash?: string): void;
  /** Publishes one gw.audit.<action> entry; the operation log is written from these events. */
  audit(entry: AuditEntry): void;
}

export interface AuditEntry {
  action: 'add_user' | 'update_user' | 'delete_user' | 'rotate_self' | 'rotate_root';
  operatorId: bigint;
  targetId: bigint;
  /** A short description; never a secret. */
  details: string;
  ipAddress: string;
}

export interface Clock {
  now(): Date;
}

export interface AccountsPolicy {
  /** AI calls stop at or below this balance (the edge's USER_API_BALANCE, docs/decisions.md §1). */
  apiBalanceFloorNano: bigint;
}

export interface AccountsDeps {
  store: AccountsStore;
  events: AccountEvents;
  clock: Clock;
  alerts: SpendAlerts;
  policy: AccountsPolicy;
}
