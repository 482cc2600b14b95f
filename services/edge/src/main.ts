import { createServer } from 'node:http';
import {
  AppError,
  connectNats,
  createGrpcClient,
  ErrorCode,
  listenHttp,
  runService,
  SUBJECTS,
  subscribeEvents,
  connectRedis,
  watchAccessLog,
} from '@gw/kit';
import { accounts, billing, config as configPb, events, keypool, news } from '@gw/proto';
import { AuthCache } from './auth/auth-cache.js';
import { FailedAuthLimiter } from './auth/failed-auth.js';
import { KeyUseRecorder } from './auth/key-use.js';
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
  const cache = new AuthCache(
    async (keyHash) => {
      try {
        return (await accountsClient.authenticateKey({ keyHash })).account;
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.NotFound) {
          return undefined;
        }
        throw error;
      }
    },
    config.GW_AUTH_CACHE_TTL_MS,
    Date.now,
    config.GW_AUTH_UNKNOWN_TTL_MS,
  );
  const keyUses = new KeyUseRecorder(
    async (uses) => {
      await accountsClient.recordKeyUse({
        uses: uses.map((use) => ({ ...use, usedAt: use.usedAt.toISOString() })),
      });
    },
    log,
    config.GW_KEY_USE_FLUSH_MS,
  );
  keyUses.start();

  const redis = connectRedis(config.REDIS_URL, 'failClosed', log, 'console sessions');
  const sessions = new ConsoleSessions(redis, config.GW_CONSOLE_SESSION_PREFIX, {
    idleMs: config.GW_CONSOLE_IDLE_SECONDS * 1000,
    maxAgeMs: config.GW_CONSOLE_MAX_AGE_SECONDS * 1000,
  });

  const nc = await connectNats(config.NATS_URL, 'edge', log);
  subscribeEvents(
    nc,
    SUBJECTS.accountChangedAll,
    events.AccountChanged,
    (event) => {
      // An `ancestor_*` event follows the ancestor's own, which has already dropped the subtree.
      const subtree = !event.reason.startsWith('ancestor_');
      cache.invalidateAccount(event.accountId, event.keyHash || undefined, subtree);
      endSessionsOnChange(sessions, event, log);
    },
    log,
  );

  const accessLog = await watchAccessLog(configClient, nc, log);

  const app = buildApp(
    {
      config,
      cache,
      keyUses,
      failedAuth: new FailedAuthLimiter(config.GW_AUTH_FAILURES_PER_MINUTE),
      trustedProxies: config.GW_TRUSTED_PROXIES,
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
    ['key uses', () => keyUses.stop()],
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
