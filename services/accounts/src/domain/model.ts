/** The accounts domain's own view of its rows (money in nano-USD bigint). */
export interface AccountRecord {
  id: bigint;
  parentId: bigint | null;
  ownerId: bigint | null;
  dna: string;
  name: string;
  email: string;
  alias: string;
  billingEmail: string;
  qrCode: string;
  isOwner: boolean;
  isRoot: boolean;
  level: number;
  gear: number;
  role: number;
  tier: number;
  factor: number;
  rates: number;
  status: boolean;
  suspended: boolean;
  /** Who set Suspended: only it or an account above it may lift it. Null when not suspended. */
  suspendedBy: bigint | null;
  /** Who set Status false: only it or an account above it may set it back. Null when enabled. */
  disabledBy: bigint | null;
  spendBlocked: boolean;
  hardLimitNano: bigint;
  softLimitNano: bigint;
  dailyLimitNano: bigint;
  userLimitNano: bigint;
  autoQuotaNano: bigint;
  rpm: bigint;
  rph: bigint;
  rpd: bigint;
  tpm: bigint;
  tph: bigint;
  tpd: bigint;
  allowIps: string;
  allowModels: string;
  allowLevels: string;
  resources: string;
  modelLimits: Record<string, unknown>;
  modelMapper: string;
  levelMapper: string;
  keyHash: string;
  keyPrefix: string;
  keyLast4: string;
  /** When an edge last saw the key; written in batches, never once per request. */
  keyLastUsedAt: Date | null;
  /** The spend of the UTC day `dayStart` ('YYYY-MM-DD'): a past day's reads as zero (see spendOf). */
  daySpendNano: bigint;
  dayStart: string | null;
  /** The spend of the UTC month `monthStart` ('YYYY-MM-01'). */
  monthSpendNano: bigint;
  monthStart: string | null;
  /** Post-paid usage the lots could not cover (docs/decisions.md §1); the balance subtracts it. */
  debtNano: bigint;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreditLot {
  id: bigint;
  accountId: bigint;
  remainingNano: bigint;
  expiresAt: Date;
}

/** An account together with its live balance, as the transports return it. */
export interface AccountView {
  account: AccountRecord;
  balanceNano: bigint;
  lots: CreditLot[];
  /** What its ancestors impose on it, when the read gathered it (see inheritance.ts). */
  inherited?: Inherited;
}

/** The rate limits an account carries (0: none of its own). */
export const LIMIT_FIELDS = ['rpm', 'rph', 'rpd', 'tpm', 'tph', 'tpd'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/**
 * The restrictions an account's ancestors put on it (docs/decisions.md §13): each ancestor's
 * non-empty list, nearest first, and the smallest non-zero rate limit among them.
 */
export interface Inherited {
  allowModels: string[];
  allowLevels: string[];
  resources: string[];
  allowIps: string[];
  limits: Record<LimitField, bigint>;
  /** An ancestor has Status false / Suspended: the account is off with it. */
  disabled: boolean;
  suspended: boolean;
  /** Each ancestor's non-empty ModelLimits, nearest first. */
  modelLimits: Array<Record<string, unknown>>;
}

/** Fields copied from the parent when a subaccount is created (access lists, limits, mappings). */
export const INHERITED_FIELDS = [
  'rates',
  'rpm',
  'rph',
  'rpd',
  'tpm',
  'tph',
  'tpd',
  'allowIps',
  'allowModels',
  'allowLevels',
  'resources',
  'modelLimits',
  'modelMapper',
  'levelMapper',
] as const satisfies ReadonlyArray<keyof AccountRecord>;

export type NewAccount = Omit<
  AccountRecord,
  | 'id'
  | 'dna'
  | 'createdAt'
  | 'updatedAt'
  | 'spendBlocked'
  | 'daySpendNano'
  | 'dayStart'
  | 'monthSpendNano'
  | 'monthStart'
  | 'debtNano'
  | 'keyLastUsedAt'
>;
