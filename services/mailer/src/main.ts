import { join } from 'node:path';
import {
  createGrpcClient,
  createSecretBox,
  listenAddress,
  openServiceDatabase,
  runService,
  selfAddressesOf,
  startGrpcService,
} from '@gw/kit';
import { accounts, config as configPb, mailer as pb } from '@gw/proto';
import { loadMailerConfig } from './config.js';
import { mailerPolicy } from './domain/policy.js';
import { DrizzleDeliveryLog } from './store/delivery-log.js';
import { accountContacts, ownerSettings, sealedParts } from './transport/grpc/clients.js';
import { mailerHandlers } from './transport/grpc/mailer-service.js';
import { startMailWorker } from './transport/jobs/mail-worker.js';
import { mailSender } from './transport/smtp/mail-sender.js';

runService('mailer', async (log) => {
  const config = loadMailerConfig(process.env);
  log.level = config.LOG_LEVEL;
  const database = await openServiceDatabase(
    config,
    'mailer',
    new URL('../migrations', import.meta.url),
    log,
  );
  const accountsClient = createGrpcClient(
    accounts.AccountsServiceClient,
    config.ACCOUNTS_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const configClient = createGrpcClient(
    configPb.ConfigServiceClient,
    config.CONFIG_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const policy = mailerPolicy({
    publicUrl: config.GW_PUBLIC_URL ?? `http://127.0.0.1:${config.GW_EDGE_PORT}`,
    docsUrl: config.MAIL_DOCS_URL,
    manageUrl: config.MAIL_MANAGE_URL,
    smtpUrl: config.MAIL_SMTP_URL,
    from: config.MAIL_FROM,
  });
  const deliveries = new DrizzleDeliveryLog(database.db);
  const deps = {
    contacts: accountContacts(accountsClient),
    settings: ownerSettings(configClient),
    sealed: sealedParts(createSecretBox(config.GW_SECRET_KEY)),
    sender: mailSender({
      self: selfAddressesOf(config),
      tenantPrivate: config.GW_TENANT_PRIVATE_CIDRS,
      emlDir: join(config.GW_DATA_DIR, 'mail'),
      heloName: new URL(policy.publicUrl).hostname || 'localhost',
      log,
    }),
    log: deliveries,
    policy,
  };
  const worker = startMailWorker(deps, {
    redisUrl: config.REDIS_URL,
    prefix: config.GW_QUEUE_PREFIX,
    concurrency: config.MAIL_CONCURRENCY,
    log,
  });

  const { server } = await startGrpcService<pb.MailerServiceServer>({
    service: 'mailer',
    address: listenAddress('mailer', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
    definition: pb.MailerServiceService,
    handlers: mailerHandlers(deliveries),
    dependencies: { postgres: () => database.ping() },
  });

  return [
    ['grpc', () => server.stop()],
    ['mail worker', () => worker.close()],
    [
      'grpc clients',
      () => {
        accountsClient.close();
        configClient.close();
      },
    ],
    ['database', () => database.close()],
  ];
});
