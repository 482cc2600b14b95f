import {
  connectNats,
  createSecretBox,
  createMailQueue,
  createAuditPublisher,
  runService,
  listenAddress,
  openServiceDatabase,
  startGrpcService,
  connectRedis,
  systemClock,
} from '@gw/kit';
import { accounts as pb } from '@gw/proto';
import { loadAccountsConfig } from './config.js';
import { bootstrapRoot } from './domain/bootstrap-root.js';
import {
  MAX_DAILY_FAILURES,
  MAX_WRONG_CODES,
  SIGNUP_COOLDOWN_MS,
  SIGNUP_LIFETIME_MS,
  signupHasher,
} from './domain/signup-rules.js';
import { DrizzleAccountsStore } from './store/accounts-store.js';
import { RedisSignupStore } from './store/redis-signup-store.js';
import { warmAccountReads } from './store/warm-up.js';
import { accountsHandlers } from './transport/grpc/accounts-service.js';
import { queueSignupMail } from './transport/jobs/signup-mail.js';
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
  const mail = createMailQueue(config.REDIS_URL, config.GW_QUEUE_PREFIX, log, config.GW_MAIL_RETRY_MS);
  const alerts = mailSpendAlerts(mail);
  // Signup fails closed: a Redis outage answers at once, and leaves nothing behind.
  const signupRedis = connectRedis(config.REDIS_URL, 'failClosed', log, 'signup');
  const deps = {
    store: new DrizzleAccountsStore(database.db),
    events: natsAccountEvents(nc, await createAuditPublisher(nc, log)),
    clock: systemClock,
    alerts,
    policy: { apiBalanceFloorNano: config.USER_API_BALANCE, tenancy: config.GW_TENANCY },
    signupStore: new RedisSignupStore(signupRedis, config.GW_SIGNUP_PREFIX),
    signupMail: queueSignupMail(mail, createSecretBox(config.GW_SECRET_KEY)),
    signupPolicy: {
      owner: config.SIGN_OWNER,
      creditNano: config.SIGN_CREDIT,
      hash: signupHasher(config.GW_SECRET_KEY),
      limits: {
        lifetimeMs: SIGNUP_LIFETIME_MS,
        cooldownMs: SIGNUP_COOLDOWN_MS,
        maxWrongCodes: MAX_WRONG_CODES,
        maxDailyFailures: MAX_DAILY_FAILURES,
        safe: config.SAFE_ENABLE,
        ipDailyCap: config.SIGN_IP_DAILY_CAP,
        dailyCap: config.SIGN_DAILY_CAP,
      },
    },
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
    dependencies: { postgres: () => database.ping() },
    warmUp: () => database.warm((tx) => warmAccountReads(tx, deps.clock.now())),
  });

  return [
    ['grpc', () => server.stop()],
    ['audit consumer', () => auditConsumer.stop()],
    ['nats', () => nc.drain()],
    ['mail queue', () => mail.close()],
    ['signup redis', () => signupRedis.disconnect()],
    ['database', () => database.close()],
  ];
});
