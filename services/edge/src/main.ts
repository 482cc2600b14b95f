import { createServer } from 'node:http';
import {
  connectNats,
  createGrpcClient,
  listenHttp,
  runService,
  startKeyAuthentication,
  connectRedis,
  watchAccessLog,
} from '@gw/kit';
import { accounts, billing, config as configPb, keypool, news } from '@gw/proto';
import { buildApp } from './app.js';
import { endSessionsOnChange } from './console/session-events.js';
import { ConsoleSessions } from './console/session-store.js';
import { loadEdgeConfig } from './config.js';
import { healthChecker } from './health.js';

runService('edge', async (log, metrics) => {
  const config = loadEdgeConfig(process.env);
  log.level = config.LOG_LEVEL;
  const accountsClient = createGrpcClient(
    accounts.AccountsServiceClient,
    config.ACCOUNTS_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const keypoolClient = createGrpcClient(
    keypool.KeypoolServiceClient,
    config.KEYPOOL_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const configClient = createGrpcClient(
    configPb.ConfigServiceClient,
    config.CONFIG_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const newsClient = createGrpcClient(news.NewsServiceClient, config.NEWS_ADDR, config.GW_INTERNAL_TOKEN);
  const billingClient = createGrpcClient(
    billing.BillingServiceClient,
    config.BILLING_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const redis = connectRedis(config.REDIS_URL, 'failClosed', log, 'console sessions');
  const sessions = new ConsoleSessions(redis, config.GW_CONSOLE_SESSION_PREFIX, {
    idleMs: config.GW_CONSOLE_IDLE_SECONDS * 1000,
    maxAgeMs: config.GW_CONSOLE_MAX_AGE_SECONDS * 1000,
  });

  const nc = await connectNats(config.NATS_URL, 'edge', log);
  const keyAuthentication = startKeyAuthentication({
    accounts: accountsClient,
    nc,
    log,
    config,
    onAccountChanged: (event) => endSessionsOnChange(sessions, event, log),
  });

  const accessLog = await watchAccessLog(configClient, nc, log);

  const app = buildApp(
    {
      config,
      ...keyAuthentication.auth,
      sessions,
      accounts: accountsClient,
      keypool: keypoolClient,
      configs: configClient,
      news: newsClient,
      billing: billingClient,
      health: healthChecker(config),
    },
    log,
    metrics,
    accessLog.accessLog,
  );
  const server = createServer(app);
  await listenHttp(server, { host: config.HOST, port: config.PORT }, log, 'edge');

  return [
    [
      'http',
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
    ],
    ['access-log switch', () => accessLog.close()],
    ['nats', () => nc.drain()],
    ['key authentication', () => keyAuthentication.close()],
    ['redis', () => redis.quit().then(() => undefined)],
    [
      'grpc clients',
      () => {
        accountsClient.close();
        keypoolClient.close();
        configClient.close();
        newsClient.close();
        billingClient.close();
      },
    ],
  ];
});
