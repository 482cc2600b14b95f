import {
  connectNats,
  createAuditPublisher,
  runService,
  createGrpcClient,
  createSecretBox,
  sqlKeyCheckStore,
  verifySecretKey,
  listenAddress,
  openServiceDatabase,
  selfAddressesOf,
  startGrpcService,
  connectRedis,
  systemClock,
} from '@gw/kit';
import { config as configPb, keypool as pb } from '@gw/proto';
import { loadKeypoolConfig } from './config.js';
import { dnsResolver } from './net/dns-resolver.js';
import { grpcLevelAutoConfig } from './transport/grpc/level-auto-config.js';
import { DrizzleKeysStore } from './store/keys-store.js';
import { RedisSleepStore } from './store/sleep-store.js';
import { warmKeyReads } from './store/warm-up.js';
import { keypoolHandlers } from './transport/grpc/keypool-service.js';
import { natsPoolEvents } from './transport/nats/pool-events.js';

runService('keypool', async (log) => {
  const config = loadKeypoolConfig(process.env);
  log.level = config.LOG_LEVEL;
  const database = await openServiceDatabase(
    config,
    'keypool',
    new URL('../migrations', import.meta.url),
    log,
  );
  const box = createSecretBox(config.GW_SECRET_KEY);
  await verifySecretKey(sqlKeyCheckStore(database.db, 'keypool'), box, 'keypool');
  const redis = connectRedis(config.REDIS_URL, 'durable', log, 'key sleeps');
  const nc = await connectNats(config.NATS_URL, 'keypool', log);
  const configClient = createGrpcClient(
    configPb.ConfigServiceClient,
    config.CONFIG_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const address = listenAddress('keypool', config);
  const deps = {
    store: new DrizzleKeysStore(database.db),
    box,
    resolver: dnsResolver(),
    sleeps: new RedisSleepStore(redis, config.GW_KEY_STATE_PREFIX),
    events: natsPoolEvents(nc, await createAuditPublisher(nc, log)),
    autoConfig: grpcLevelAutoConfig(configClient, log),
    clock: systemClock,
    self: selfAddressesOf(config),
    tenantPrivate: config.GW_TENANT_PRIVATE_CIDRS,
  };

  const { server } = await startGrpcService<pb.KeypoolServiceServer>({
    service: 'keypool',
    address,
    token: config.GW_INTERNAL_TOKEN,
    log,
    definition: pb.KeypoolServiceService,
    handlers: keypoolHandlers(deps),
    dependencies: { postgres: () => database.ping() },
    warmUp: () => database.warm(warmKeyReads),
  });

  return [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
    ['grpc clients', () => configClient.close()],
    [
      'redis',
      async () => {
        await redis.quit();
      },
    ],
    ['database', () => database.close()],
  ];
});
