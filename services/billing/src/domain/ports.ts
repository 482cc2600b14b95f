import type { PriceTable } from '@gw/kit';
import type { events } from '@gw/proto';

/** One `gw.usage.recorded` event as the proxy published it. */
export type UsageEvent = events.UsageRecorded;

/** What billing stores of one event: the usage record, priced. */
export interface UsageRecord {
  eventId: string;
  accountId: bigint;
  ownerId: bigint;
  /** The model the event is billed under (served, else requested). */
  model: string;
  /** UTC 'YYYY-MM-DD' of the event. */
  day: string;
  at: Date;
  promptTokens: bigint;
  completionTokens: bigint;
  cachedTokens: bigint;
  costNano: bigint;
  fallbackPrice: boolean;
  partial: boolean;
  estimated: boolean;
}

/** A record as stored: what its debit carries, the same on every redelivery. */
export interface StoredCharge {
  eventId: string;
  accountId: bigint;
  model: string;
  costNano: bigint;
}

export interface UsageStore {
  /**
   * In one transaction: inserts the records not yet stored (by event id), adds only those to
   * the rollups, and answers the stored charge of every event id given, new or old.
   */
  recordBatch(records: readonly UsageRecord[]): Promise<StoredCharge[]>;
}

export type DebitOutcome = 'charged' | 'replayed' | 'conflict' | 'no_account';

/** Accounts, as billing uses it. */
export interface Ledger {
  /** One DebitBatch: every charge in one accounts transaction, idempotent by event id. */
  debitBatch(charges: readonly StoredCharge[]): Promise<Array<{ eventId: string; outcome: DebitOutcome }>>;
}

export interface AccountMultipliers {
  accountRates: number;
  factor: number;
}

/** Account Rates and Factor by account id (an unknown account: 1 and 1). */
export interface RatesSource {
  multipliers(accountIds: readonly bigint[]): Promise<Map<bigint, AccountMultipliers>>;
}

/** The merged price table of each owner (the defaults with the owner's PRICING over them). */
export interface PricesSource {
  tableFor(ownerId: bigint): Promise<PriceTable>;
}

export interface BillingLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** What billing reports as metrics: nano-USD that reached the ledger as new charges. */
export interface ChargeMetrics {
  charged(nanoUsd: bigint): void;
}

export interface ChargeDeps {
  store: UsageStore;
  ledger: Ledger;
  rates: RatesSource;
  prices: PricesSource;
  log: BillingLog;
  metrics: ChargeMetrics;
}

export interface UsageQuery {
  accountIds: readonly bigint[];
  /** 'YYYY-MM-DD', inclusive. */
  startDay: string;
  endDay: string;
  byAccount: boolean;
}

export interface UsageRow {
  /** 0n when summed over the accounts. */
  accountId: bigint;
  day: string;
  model: string;
  requests: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  cachedTokens: bigint;
  costNano: bigint;
}

export interface UsageReads {
  /** Rollup rows of these accounts within the days, ordered by account, day, model. */
  usage(query: UsageQuery): Promise<UsageRow[]>;
}
