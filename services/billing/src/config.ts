import {
  databaseEnv,
  env,
  fallbackPriceEnv,
  grpcServiceEnv,
  loadConfig,
  natsEnv,
  DEFAULT_ADDRESSES,
  usageStreamEnv,
} from '@gw/kit';

const shape = {
  ...grpcServiceEnv('billing'),
  ...natsEnv,
  ...databaseEnv,
  /** ACCOUNTS_ADDR (DebitBatch, GetChargeRates) and CONFIG_ADDR (each owner's PRICING) are dialled. */
  ACCOUNTS_ADDR: env.address(DEFAULT_ADDRESSES.accounts),
  CONFIG_ADDR: env.address(DEFAULT_ADDRESSES.config),
  /** GW_USAGE's retention (declared by the proxy and billing alike). */
  ...usageStreamEnv,
  /** At most this many usage events per batch: one billing transaction and one DebitBatch each. */
  BILLING_BATCH_SIZE: env.integer(2000, { min: 1, max: 5000 }),
  /** A batch waits at most this long to fill before it is charged as it is. */
  BILLING_BATCH_WAIT_MS: env.integer(100, { min: 1, max: 60_000 }),
  /** Delivered but unacknowledged usage events allowed at once (JetStream max_ack_pending). */
  BILLING_MAX_ACK_PENDING: env.integer(10_000, { min: 1, max: 1_000_000 }),
  /**
   * An event pulled and not acknowledged within this is delivered again: how soon the events a
   * killed billing held come back. A batch in progress keeps its events (and those queued behind
   * it) in hand, however long it takes.
   */
  BILLING_ACK_WAIT_MS: env.integer(5_000, { min: 1_000, max: 3_600_000 }),
  /** Account Rates and Factor are read again after this long (an update applies within it). */
  BILLING_RATES_TTL_MS: env.integer(5_000, { min: 0, max: 3_600_000 }),
  /** The price of a model priced nowhere (docs/pricing.md). */
  ...fallbackPriceEnv,
};

export function loadBillingConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
