import {
  connectNats,
  createMailQueue,
  createAuditPublisher,
  runService,
  listenAddress,
  openServiceDatabase,
  startGrpcService,
} from '@gw/kit';
import { accounts as pb } from '@gw/proto';
import { loadAccountsConfig } from './config.js';
import { bootstrapRoot } from './domain/bootstrap-root.js';
import { DrizzleAccountsStore } from './store/accounts-store.js';
import { accountsHandlers } from './transport/grpc/accounts-service.js';
import { mailSpendAlerts } from './transport/jobs/spend-alerts.js';
import { natsAccountEvents } from './transport/nats/account-events.js';
import { consumeAuditEvents } from './transport/nats/audit-consumer.js';

runService('accounts', async (log) => {
  const config = loadAccountsConfig(process.env);
  log.level = config.LOG_LEVEL;
  const database = await openServiceDatabase(
    config,
    'accounts',
    new URL('../migrations', import.meta.url),
    log,
  );
  const nc = await connectNats(config.NATS_URL, 'accounts', log);
  const mail = createMailQueue(config.REDIS_URL, config.GW_QUEUE_PREFIX, log);
  const alerts = mailSpendAlerts(mail);
  const deps = {
    store: new DrizzleAccountsStore(database.db),
    events: natsAccountEvents(nc, await createAuditPublisher(nc, log)),
    clock: { now: () => new Date() },
    alerts,
    policy: { apiBalanceFloorNano: config.USER_API_BALANCE },
  };
  const auditConsumer = await consumeAuditEvents(nc, deps, log);

  const { generatedKey } = await bootstrapRoot(deps, config.GW_ROOT_KEY);
  if (generatedKey) {
    // Printed once, on purpose outside the JSON log (whose redaction would hide it).
    process.stdout.write(`\n  Root API key (shown once, keep it safe): ${generatedKey}\n\n`);
  }

  const { server } = await startGrpcService<pb.AccountsServiceServer>({
    service: 'accounts',
    address: listenAddress('accounts', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
    definition: pb.AccountsServiceService,
    handlers: accountsHandlers(deps),
  });

  return [
    ['grpc', () => server.stop()],
    ['audit consumer', () => auditConsumer.stop()],
    ['nats', () => nc.drain()],
    ['mail queue', () => mail.close()],
    ['database', () => database.close()],
  ];
});
