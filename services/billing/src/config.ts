import {
  databaseEnv,
  env,
  fallbackPriceEnv,
  grpcServiceEnv,
  loadConfig,
  natsEnv,
  usageStreamEnv,
} from '@gw/kit';

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...grpcServiceEnv('billing'),
  ...natsEnv,
  ...databaseEnv,
  // Dialled: accounts (DebitBatch, GetChargeRates) and config (each owner's PRICING).
  ACCOUNTS_ADDR: env.serviceAddress('accounts'),
  CONFIG_ADDR: env.serviceAddress('config'),
  ...usageStreamEnv,
  BILLING_BATCH_SIZE: env
    .integer(2000, { min: 1, max: 5000 })
    .describe('At most this many usage events per batch: one billing transaction and one DebitBatch each.'),
  // Each batch costs billing and accounts a transaction whatever its size: at a few hundred calls a
  // second a 100 ms wait spent more CPU on them than the edge spent on its hop. Usage reaches the
  // balance this much later; the proxy's spend holds (10 s) cover it.
  BILLING_BATCH_WAIT_MS: env
    .integer(250, { min: 1, max: 60_000 })
    .describe('A batch waits at most this long to fill before it is charged as it is.'),
  BILLING_MAX_ACK_PENDING: env
    .integer(10_000, { min: 1, max: 1_000_000 })
    .describe('Delivered but unacknowledged usage events allowed at once (JetStream max_ack_pending).'),
  BILLING_ACK_WAIT_MS: env
    .integer(5_000, { min: 1_000, max: 3_600_000 })
    .describe(
      'An event pulled and not acknowledged within this is delivered again: how soon the events a killed billing held come back (a batch in progress keeps its events, however long it takes).',
    ),
  BILLING_RATES_TTL_MS: env
    .integer(5_000, { min: 0, max: 3_600_000 })
    .describe('Account Rates and Factor are read again after this long (an update applies within it).'),
  ...fallbackPriceEnv,
};

export function loadBillingConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
