import type { PriceTable } from '@gw/kit';
import type { StoredCharge, UsageStore } from './usage.js';

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
