import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  connectNats,
  createGrpcClient,
  createMailQueue,
  isAiPath,
  ensureStream,
  newId,
  runService,
  publishDurable,
  publishEvent,
  runWithContext,
  selfAddressesOf,
  splitAddress,
  STREAMS,
  SUBJECTS,
} from '@gw/kit';
import { config as configProto, events, keypool } from '@gw/proto';
import { Redis } from 'ioredis';
import { loadProxyConfig } from './config.js';
import type { KeySource } from './domain/ports.js';
import { RoundRobin } from './domain/route-plan.js';
import { REALTIME_PATH, relayRealtime } from './realtime.js';
import { relay, sendError, type RelayDeps } from './relay.js';
import { inspectRoute } from './route-inspect.js';
import { FileUsageOutbox } from './store/usage-outbox.js';
import { GrpcKeySource } from './transport/key-source-grpc.js';
import { CloudBTokens } from './transport/cloud-b-tokens.js';
import { mailOwnerAlerts } from './transport/owner-alerts.js';
import { RedisKeyHealth } from './transport/redis-key-health.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

runService('proxy', async (log) => {
  const config = loadProxyConfig(process.env);
  log.level = config.LOG_LEVEL;

  const nc = await connectNats(config.NATS_URL, 'proxy', log);
  await ensureStream(nc, STREAMS.usage);
  const js = nc.jetstream();
  const outbox = new FileUsageOutbox(
    join(config.GW_DATA_DIR, 'proxy', 'outbox'),
    config.PROXY_OUTBOX_MAX,
    async (event) => {
      await publishDurable(js, SUBJECTS.usageRecorded, events.UsageRecorded, event, event.eventId);
    },
    log,
    config.PROXY_OUTBOX_FSYNC,
  );
  await outbox.open();

  // Shared key state: never let a slow Redis hold a request (fail open after 250 ms).
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    commandTimeout: 250,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  });
  redis.on('error', (error) => log.debug({ err: error }, 'redis error'));

  const keys: KeySource = new GrpcKeySource(
    createGrpcClient(keypool.KeypoolServiceClient, config.KEYPOOL_ADDR, config.GW_INTERNAL_TOKEN),
    createGrpcClient(configProto.ConfigServiceClient, config.CONFIG_ADDR, config.GW_INTERNAL_TOKEN),
    nc,
    log,
  );

  const mail = createMailQueue(config.REDIS_URL, config.GW_QUEUE_PREFIX, log, config.GW_MAIL_RETRY_MS);
  const cloudBTokens = new CloudBTokens(config.PROXY_CLOUD_B_TOKEN_URL);
  const deps: RelayDeps = {
    config,
    self: selfAddressesOf(config),
    keys,
    health: new RedisKeyHealth(redis, config.GW_KEY_STATE_PREFIX, log),
    outbox,
    roundRobin: new RoundRobin(),
    alerts: mailOwnerAlerts(mail),
    levels: {
      levelSwitched: (ownerId, level, until) =>
        publishEvent(nc, SUBJECTS.levelSwitched(ownerId), events.LevelSwitched, {
          ownerId: BigInt(ownerId),
          level,
          switchedBack: until === undefined,
          until: until === undefined ? '' : new Date(until).toISOString(),
          at: new Date().toISOString(),
        }),
    },
    providers: {
      defaults: {
        cloudAApiVersions: {
          chat: config.PROXY_CLOUD_A_API_VERSION,
          embeddings: config.PROXY_CLOUD_A_API_VERSION,
          audio: config.PROXY_CLOUD_A_API_VERSION,
          images: config.PROXY_CLOUD_A_API_VERSION,
          responses: config.PROXY_CLOUD_A_RESPONSES_API_VERSION,
        },
      },
      accessToken: (key) => cloudBTokens.get(key),
    },
    log,
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ status: 'ok', outbox: outbox.size }));
      return;
    }
    if (req.method === 'GET' && path === '/internal/route') {
      inspectRoute(deps, req, res).catch((error: unknown) => {
        log.error({ err: error }, 'route inspection failed');
        sendError(res, 500, 'api_error', 'internal', 'internal error');
      });
      return;
    }
    if (!isAiPath(path)) {
      sendError(res, 404, 'not_found_error', 'not_found', 'no such endpoint');
      return;
    }
    const requestId = String(req.headers['x-request-id'] ?? '') || newId('request');
    runWithContext({ requestId }, () => {
      relay({ ...deps, log: log.child({ requestId }) }, req, res).catch((error: unknown) => {
        log.error({ err: error, requestId }, 'relay failed');
        sendError(res, 500, 'api_error', 'internal', 'internal error');
      });
    });
  });
  server.on('upgrade', (req, socket, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path !== REALTIME_PATH) {
      socket.destroy();
      return;
    }
    const requestId = String(req.headers['x-request-id'] ?? '') || newId('request');
    runWithContext({ requestId }, () => {
      relayRealtime({ ...deps, log: log.child({ requestId }) }, req, socket, head).catch((error: unknown) => {
        log.error({ err: error, requestId }, 'realtime relay failed');
        socket.destroy();
      });
    });
  });
  // Streams may be long: no server-side request timeout; idle upstreams are cut by the relay.
  server.requestTimeout = 0;

  const { host, port } = splitAddress(config.PROXY_ADDR);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  log.info({ address: `${host}:${bound}` }, 'proxy serving');

  return [
    [
      'http',
      // Stop accepting, let in-flight requests and streams finish, drop idle keep-alive sockets.
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
    ],
    [
      'usage outbox',
      () =>
        Promise.race([outbox.whenIdle(), new Promise<void>((resolve) => setTimeout(resolve, 3_000))]).then(
          () => outbox.close(),
        ),
    ],
    ['key source', () => keys.close()],
    ['nats', () => nc.drain()],
    ['mail queue', () => mail.close()],
    ['redis', () => void redis.quit().catch(() => undefined)],
  ];
});
