import {
  AppError,
  DEFAULT_PRICES,
  ErrorCode,
  mergePricing,
  SUBJECTS,
  subscribeEvents,
  type Logger,
  type NatsConnection,
  type PriceTable,
  type PromiseClient,
} from '@gw/kit';
import { events, type config } from '@gw/proto';
import type { PricesSource } from '../../domain/ports/deps.js';

/** Backstop for a lost `gw.config.updated` event. */
const MAX_AGE_MS = 60_000;

/**
 * Each owner's merged price table: the defaults with the owner's PRICING (from config) over
 * them, merged once per config version and held in memory. `gw.config.updated.<owner>` drops
 * the owner's table, so a changed PRICING prices every event billed after the update arrives.
 */
export class OwnerPrices implements PricesSource {
  private readonly cache = new Map<bigint, { at: number; table: Promise<PriceTable> }>();
  private readonly subscription: { unsubscribe(): void };

  constructor(
    private readonly client: PromiseClient<config.ConfigServiceClient>,
    nc: NatsConnection,
    private readonly log: Logger,
  ) {
    this.subscription = subscribeEvents(
      nc,
      SUBJECTS.configUpdatedAll,
      events.ConfigUpdated,
      (event) => void this.cache.delete(event.ownerId),
      log,
    );
  }

  tableFor(ownerId: bigint): Promise<PriceTable> {
    const cached = this.cache.get(ownerId);
    if (cached && Date.now() - cached.at < MAX_AGE_MS) {
      return cached.table;
    }
    const table = this.load(ownerId);
    this.cache.set(ownerId, { at: Date.now(), table });
    table.catch(() => {
      if (this.cache.get(ownerId)?.table === table) {
        this.cache.delete(ownerId);
      }
    });
    return table;
  }

  close(): void {
    this.subscription.unsubscribe();
    this.client.close();
  }

  private async load(ownerId: bigint): Promise<PriceTable> {
    let pricing: string;
    try {
      pricing = (await this.client.getOwnerConfig({ ownerId })).values.PRICING ?? '';
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.NotFound)) {
        throw error;
      }
      // No such owner (an event from a tree since removed): the defaults, never a stuck batch.
      pricing = '';
    }
    if (pricing.trim() === '') {
      return DEFAULT_PRICES;
    }
    try {
      return mergePricing(DEFAULT_PRICES, pricing);
    } catch (error) {
      // Config refuses a PRICING it cannot read, so this is an older stored value: the defaults
      // still price every model (and a model in none is charged the fallback), never free.
      this.log.error(
        { err: error, ownerId: String(ownerId) },
        'owner PRICING unreadable: default prices used',
      );
      return DEFAULT_PRICES;
    }
  }
}
