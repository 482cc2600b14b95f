import { join } from 'node:path';
import {
  connectNats,
  createGrpcClient,
  createMailQueue,
  ensureStream,
  listenHttp,
  METRIC,
  runService,
  type ShutdownStep,
  selfAddressesOf,
  STREAMS,
  usageStreamLimits,
  connectRedis,
  startKeyAuthentication,
  watchAccessLog,
} from '@gw/kit';
import { accounts, config as configPb, keypool } from '@gw/proto';
import { loadProxyConfig } from './config.js';
import type { ProxyDeps } from './deps.js';
import { BodyBudget } from './domain/body-budget.js';
import { modelLimitTableOf } from './domain/limits.js';
import { RoundRobin } from './domain/route-plan.js';
import { FileUsageOutbox } from './store/usage-outbox.js';
import { GrpcKeySource } from './transport/grpc/key-source.js';
import { keyCallers } from './transport/http/callers.js';
import { endSessionsOnAccountChange, RealtimeSessions } from './transport/http/realtime-sessions.js';
import { Drain } from './transport/http/drain.js';
import { pipeToEdge } from './transport/http/pass-to-edge.js';
import { createHttpServer } from './transport/http/server.js';
import { mailOwnerAlerts } from './transport/jobs/owner-alerts.js';
import { natsLevelEvents } from './transport/nats/level-events.js';
import { jetStreamUsagePublisher } from './transport/nats/usage-publisher.js';
import { RedisAdmission } from './transport/redis/admission.js';
import { RedisKeyHealth } from './transport/redis/key-health.js';
import { RedisObjectOwners } from './transport/redis/object-owners.js';
import { RedisSpendReservations } from './transport/redis/spend-reservations.js';
import { RedisRateLimiter } from './transport/redis/rate-limiter.js';
import { VertexAiTokens } from './transport/upstream/vertex-ai-tokens.js';
import { UpstreamClient } from './transport/upstream/http.js';

runService('proxy', async (log, metrics) => {
  const config = loadProxyConfig(process.env);
  log.level = config.LOG_LEVEL;

  const nc = await connectNats(config.NATS_URL, 'proxy', log);
  await ensureStream(nc, STREAMS.usage, usageStreamLimits(config));
  const outbox = new FileUsageOutbox({
    dir: join(config.GW_DATA_DIR, 'proxy', 'outbox'),
    max: config.PROXY_OUTBOX_MAX,
    publish: jetStreamUsagePublisher(nc),
    log,
    fsync: config.PROXY_OUTBOX_FSYNC,
  });
  await outbox.open();
  metrics.gauge(
    METRIC.usageOutboxDepth,
    'Usage events written to the outbox and not yet published',
    [],
    (gauge) => gauge.set(outbox.size),
  );

  const redis = connectRedis(config.REDIS_URL, 'hotPath', log, 'shared key state');
  const limiter = new RedisRateLimiter(redis, config.GW_KEY_STATE_PREFIX, log);
  const health = new RedisKeyHealth(redis, config.GW_KEY_STATE_PREFIX, log);
  const spend = new RedisSpendReservations(redis, config.GW_KEY_STATE_PREFIX);
  const admission = new RedisAdmission(redis, { limiter, health, spend });

  const configClient = createGrpcClient(
    configPb.ConfigServiceClient,
    config.CONFIG_ADDR,
    config.GW_INTERNAL_TOKEN,
  );
  const keys = new GrpcKeySource(
    createGrpcClient(keypool.KeypoolServiceClient, config.KEYPOOL_ADDR, config.GW_INTERNAL_TOKEN),
    configClient,
    nc,
    log,
  );
  const accessLog = await watchAccessLog(configClient, nc, log);
  metrics.gauge(
    METRIC.staleKeyPools,
    'Owners served from their last good key pool because reloading it failed',
    [],
    (gauge) => gauge.set(keys.staleOwners()),
  );
  const bodies = new BodyBudget({
    processBytes: config.PROXY_BODY_BUFFER_MAX_BYTES,
    accountBytes: Math.max(config.PROXY_BODY_BUFFER_ACCOUNT_MAX_BYTES, config.PROXY_UPLOAD_LIMIT_BYTES),
  });
  metrics.gauge(METRIC.requestBodyBytes, 'Request body bytes held in memory now', [], (gauge) =>
    gauge.set(bodies.inUse()),
  );
  const mail = createMailQueue(config.REDIS_URL, config.GW_QUEUE_PREFIX, log, config.GW_MAIL_RETRY_MS);
  const vertexAiTokens = new VertexAiTokens(config.PROXY_CLOUD_B_TOKEN_URL);
  const upstream = new UpstreamClient({ idleSocketMs: config.PROXY_UPSTREAM_IDLE_SOCKET_MS });
  const sessions = new RealtimeSessions();
  // Every AI call is authenticated here; an account change drops its cached key and ends its
  // realtime sessions when it revokes access.
  const keyAuthentication = startKeyAuthentication({
    accounts: createGrpcClient(
      accounts.AccountsServiceClient,
      config.ACCOUNTS_ADDR,
      config.GW_INTERNAL_TOKEN,
    ),
    nc,
    log,
    config,
    onAccountChanged: (event) => endSessionsOnAccountChange(sessions, event, log),
  });
  const deps: ProxyDeps = {
    config,
    callers: keyCallers(keyAuthentication.auth, config.USER_API_BALANCE),
    self: selfAddressesOf(config),
    tenantPrivate: config.GW_TENANT_PRIVATE_CIDRS,
    keys,
    upstream,
    sessions,
    limiter,
    bodies,
    defaultModelLimits: modelLimitTableOf(config.PROXY_DEFAULT_MODEL_LIMITS),
    admission,
    health,
    outbox,
    objects: new RedisObjectOwners(redis, config.GW_KEY_STATE_PREFIX),
    spend,
    roundRobin: new RoundRobin(),
    alerts: mailOwnerAlerts(mail),
    levels: natsLevelEvents(nc),
    providers: {
      defaults: {
        azureOpenAiApiVersions: {
          chat: config.PROXY_CLOUD_A_API_VERSION,
          embeddings: config.PROXY_CLOUD_A_API_VERSION,
          audio: config.PROXY_CLOUD_A_API_VERSION,
          images: config.PROXY_CLOUD_A_API_VERSION,
          responses: config.PROXY_CLOUD_A_RESPONSES_API_VERSION,
        },
      },
      accessToken: (key) => vertexAiTokens.get(key),
    },
    log,
  };

  const drain = new Drain();
  const edge = config.EDGE_ADDR
    ? pipeToEdge({
        address: config.EDGE_ADDR,
        internalToken: config.GW_INTERNAL_TOKEN,
        trustedProxies: config.GW_TRUSTED_PROXIES,
        log,
      })
    : undefined;
  const server = createHttpServer(deps, metrics, drain, accessLog.accessLog, edge);
  await listenHttp(server, config.PROXY_ADDR, log, 'proxy');

  const steps: ShutdownStep[] = [
    // Refuse new calls, let those in flight finish (bounded by PROXY_DRAIN_MS), then close.
    ['http', () => drain.stop(server, config.PROXY_DRAIN_MS)],
    ['edge sockets', () => edge?.close()],
    [
      'usage outbox',
      () =>
        Promise.race([outbox.whenIdle(), new Promise<void>((resolve) => setTimeout(resolve, 3_000))]).then(
          () => outbox.close(),
        ),
    ],
    ['access-log switch', () => accessLog.close()],
    ['key source', () => keys.close()],
    ['key authentication', () => keyAuthentication.close()],
    ['upstream sockets', () => upstream.close()],
    ['nats', () => nc.drain()],
    ['mail queue', () => mail.close()],
    ['rate limits', () => limiter.flush()],
    ['spend holds', () => spend.flush()],
    ['redis', () => void redis.quit().catch(() => undefined)],
  ];
  // The drain, then up to 10 s for the rest (the outbox's last publishes among them).
  return { steps, shutdownTimeoutMs: config.PROXY_DRAIN_MS + 10_000 };
});
