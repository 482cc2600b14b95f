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
