import type { Clock } from '@gw/kit';
import type { AccountsRepository, AccountWrites } from './accounts.js';
import type { ConservationReport } from './conservation.js';
import type { IdempotencyKeys } from './idempotency.js';
import type { Ledger } from './ledger.js';
import type { LotReads, LotWrites } from './lots.js';
import type { OperationLog } from './operation-log.js';

/** The stores, one per aggregate; money moves only inside `transaction`. */
export interface AccountsStore {
  accounts: AccountsRepository;
  lots: LotReads;
  operations: OperationLog;
  conservation: ConservationReport;
  transaction<T>(work: (tx: AccountsTx) => Promise<T>): Promise<T>;
}

/** The aggregates inside one transaction, so money moves atomically. */
export interface AccountsTx {
  accounts: AccountWrites;
  lots: LotWrites;
  ledger: Ledger;
  idempotency: IdempotencyKeys;
}

/** Alert mails are sent by the mailer; accounts only enqueues them. */
export interface SpendAlerts {
  /** The first SoftLimit crossing of `month` ('YYYY-MM'); enqueued at most once per month. */
  softLimitReached(accountId: bigint, month: string): Promise<void>;
  /** A notice to the account's BillingEmail; `jobKey` (no ':') makes a second enqueue a no-op. */
  billingNotice(accountId: bigint, subject: string, text: string, jobKey: string): Promise<void>;
}

export interface AccountEvents {
  accountChanged(accountId: bigint, reason: string, keyHash?: string): void;
  /** Publishes one gw.audit.<action> entry; the operation log is written from these events. */
  audit(entry: AuditEntry): void;
}

export interface AuditEntry {
  action: 'add_user' | 'update_user' | 'delete_user' | 'rotate_self' | 'rotate_root';
  operatorId: bigint;
  /** An account id (0 when a refused operation names none). */
  targetId: bigint;
  /** A short description; never a secret. */
  details: string;
  ipAddress: string;
  /** Default success. */
  status?: 'success' | 'failed';
  /** The owner whose tree the target is in, when the operator acts from outside it (root). */
  tenantId?: bigint;
}

export interface AccountsPolicy {
  /** AI calls stop at or below this balance (the edge's USER_API_BALANCE, docs/decisions.md §1). */
  apiBalanceFloorNano: bigint;
  /** GW_TENANCY: single (root is the one owner) or multi (root's children own tenants). */
  tenancy: 'single' | 'multi';
}

export interface AccountsDeps {
  store: AccountsStore;
  events: AccountEvents;
  clock: Clock;
  alerts: SpendAlerts;
  policy: AccountsPolicy;
}
