import {
  connectNats,
  createAuditPublisher,
  runService,
  createSecretBox,
  sqlKeyCheckStore,
  verifySecretKey,
  listenAddress,
  openServiceDatabase,
  resolveAddresses,
  selfAddressesOf,
  startGrpcService,
  systemClock,
} from '@gw/kit';
import { config as configPb } from '@gw/proto';
import { loadConfigServiceConfig } from './config.js';
import { DrizzleConfigStore } from './store/config-store.js';
import { warmConfigReads } from './store/warm-up.js';
import { configHandlers } from './transport/grpc/config-service.js';
import { natsConfigEvents } from './transport/nats/config-events.js';

runService('config', async (log) => {
  const config = loadConfigServiceConfig(process.env);
  log.level = config.LOG_LEVEL;
  const database = await openServiceDatabase(
    config,
    'config',
    new URL('../migrations', import.meta.url),
    log,
  );
  const box = createSecretBox(config.GW_SECRET_KEY);
  await verifySecretKey(sqlKeyCheckStore(database.db, 'config'), box, 'config');
  const nc = await connectNats(config.NATS_URL, 'config', log);
  const deps = {
    store: new DrizzleConfigStore(database.db),
    clock: systemClock,
    box,
    events: natsConfigEvents(nc, await createAuditPublisher(nc, log)),
    self: selfAddressesOf(config),
    tenantPrivate: config.GW_TENANT_PRIVATE_CIDRS,
    resolver: { resolve: (host: string) => resolveAddresses(host) },
  };

  const { server } = await startGrpcService<configPb.ConfigServiceServer>({
    service: 'config',
    address: listenAddress('config', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
    definition: configPb.ConfigServiceService,
    handlers: configHandlers(deps),
    dependencies: { postgres: () => database.ping() },
    warmUp: () => database.warm(warmConfigReads),
  });

  return [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
    ['database', () => database.close()],
  ];
});
