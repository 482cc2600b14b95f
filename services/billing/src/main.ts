import {
  billingMetrics,
  connectNats,
  createGrpcClient,
  ensureStream,
  listenAddress,
  openServiceDatabase,
  runService,
  startGrpcService,
  STREAMS,
  usageStreamLimits,
} from '@gw/kit';
import { accounts, billing, config as configPb } from '@gw/proto';
import { loadBillingConfig } from './config.js';
import { chargeBatch } from './domain/charge-batch.js';
import { DrizzleUsageReads } from './store/usage-reads.js';
import { DrizzleUsageStore } from './store/usage-store.js';
import { billingHandlers } from './transport/grpc/billing-service.js';
import { AccountsLedger } from './transport/grpc/accounts-ledger.js';
import { OwnerPrices } from './transport/grpc/owner-prices.js';
import { consumeUsage } from './transport/nats/usage-consumer.js';

runService('billing', async (log, metrics) => {
  const config = loadBillingConfig(process.env);
  log.level = config.LOG_LEVEL;
  const database = await openServiceDatabase(
    config,
    'billing',
    new URL('../migrations', import.meta.url),
    log,
  );
  const nc = await connectNats(config.NATS_URL, 'billing', log);
  await ensureStream(nc, STREAMS.usage, usageStreamLimits(config));

  const ledger = new AccountsLedger(
    createGrpcClient(accounts.AccountsServiceClient, config.ACCOUNTS_ADDR, config.GW_INTERNAL_TOKEN),
    config.BILLING_RATES_TTL_MS,
  );
  const prices = new OwnerPrices(
    createGrpcClient(configPb.ConfigServiceClient, config.CONFIG_ADDR, config.GW_INTERNAL_TOKEN),
    nc,
    log,
  );
  // The consumer starts after the gRPC server; until then the lag gauge reads 0.
  let consumerLag = (): Promise<number> => Promise.resolve(0);
  const deps = {
    store: new DrizzleUsageStore(database.db),
    ledger,
    rates: ledger,
    prices,
    log,
    metrics: billingMetrics(metrics, () => consumerLag()),
  };

  const { server } = await startGrpcService<billing.BillingServiceServer>({
    service: 'billing',
    address: listenAddress('billing', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
    definition: billing.BillingServiceService,
    handlers: billingHandlers({ store: new DrizzleUsageReads(database.db) }),
    dependencies: { postgres: () => database.ping() },
  });
  const consumer = await consumeUsage(nc, {
    batchSize: config.BILLING_BATCH_SIZE,
    batchWaitMs: config.BILLING_BATCH_WAIT_MS,
    maxAckPending: config.BILLING_MAX_ACK_PENDING,
    ackWaitMs: config.BILLING_ACK_WAIT_MS,
    handle: (events) => chargeBatch(deps, { events, fallback: config.GW_FALLBACK_PRICE, now: new Date() }),
    log,
  });
  consumerLag = () => consumer.lag();

  return [
    ['grpc', () => server.stop()],
    ['usage consumer', () => consumer.stop()],
    ['nats', () => nc.drain()],
    [
      'clients',
      () => {
        ledger.close();
        prices.close();
      },
    ],
    ['database', () => database.close()],
  ];
});
