import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GRPC_SERVICES, splitAddress } from '@gw/kit';
import { startNatsServer } from './nats.js';
import { createTestDatabase } from './postgres.js';
import { freePort, waitFor } from './ports.js';
import type { RunningProcess } from './process.js';
import { checkAgainstDocument } from './openapi-check.js';
import {
  lastOutputs,
  serviceProcess,
  serving,
  sharedEnv,
  startAgainIfPortTaken,
  workspaceCompiled,
  type BackingService,
  type CompiledRoot,
} from './service-launch.js';
// The launcher's embedded PostgreSQL, by path (the CLI package owns it; testkit must not depend on it).
import {
  startEmbeddedPostgres,
  stopEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../../cli/src/embedded-postgres.js';

export interface GatewayOptions {
  /**
   * PostgreSQL URL of a database the test owns (to read or seed it). Without it, the gateway gets
   * a fresh database of its own on the machine's PostgreSQL, dropped when it stops.
   */
  databaseUrl?: string;
  /**
   * One embedded PostgreSQL under the temporary data folder, shared by every service (a schema
   * each), as `npm start` runs by default: for the tests about that default.
   */
  embedded?: boolean;
  env?: Record<string, string>;
  /**
   * The folder a service runs from when compiled (what its image holds: `dist/` and production
   * dependencies, built by scripts/build-service.mjs). Without it every service runs from the
   * workspace: its `dist/` when GW_TEST_SERVICES=compiled (the int tests' setting, compiled by
   * their global setup), else its TypeScript source through tsx.
   */
  compiledRoot?: CompiledRoot;
}

export interface Gateway {
  /**
   * The public URL: the proxy, the gateway's front door (its PROXY_ADDR), which passes every
   * request that is not an AI call to the edge (EDGE_ADDR), as `npm start` lays it out.
   */
  baseUrl: string;
  rootKey: string;
  natsUrl: string;
  env: Record<string, string>;
  processes: Map<string, RunningProcess>;
  /** With `embedded`: stops and starts the embedded PostgreSQL (same folder, same port). */
  embeddedDatabase?: { stop(): Promise<void>; start(): Promise<void> };
  /** Where each process (by its name in `processes`) serves `GET /metrics`: `host:port`. */
  metrics: Map<string, string>;
  /**
   * Starts one more edge replica against the same services, with these variables changed for it
   * alone (GW_TRUSTED_PROXIES, …; PORT puts it there, as on the EDGE_ADDR a proxy replica was
   * given); returns its own base URL, reached directly (no proxy in front): for its management
   * routes.
   */
  startEdgeReplica(changes?: Record<string, string>): Promise<string>;
  /**
   * Starts one more front door: a proxy replica against the same services, passing to the main
   * edge (the same EDGE_ADDR) unless `changes` say otherwise (they apply to it alone, as
   * GW_TRUSTED_PROXIES); resolves with its address (host:port) once it serves.
   */
  startProxyReplica(changes?: Record<string, string>): Promise<string>;
  /**
   * Starts a backing process again (after it was stopped, or stopping it first) with these
   * variables changed for it and every later start; resolves once it serves.
   */
  restartService(name: BackingService, changes?: Record<string, string>): Promise<void>;
  /**
   * Calls the front door with the (current) root key unless another key (or none) is given. The
   * answer must match docs/openapi.json (its route, status and body schema; /v1 excepted), or
   * the call throws; `undocumented: true` is for a test that calls a route on purpose that the
   * document does not list (an unknown path or method).
   */
  request(path: string, init?: GatewayRequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export type GatewayRequestInit = RequestInit & {
  key?: string | null;
  json?: unknown;
  base?: string;
  undocumented?: boolean;
};

async function healthy(baseUrl: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/healthz`);
  return response.status === 200;
}

/**
 * Starts the whole gateway as real processes on free ports, with a private nats-server (so
 * event subjects and streams of parallel test runs never mix), and waits for /healthz through
 * the front door. The proxy listens on the public port (GW_EDGE_PORT), the edge on a free port
 * of its own (EDGE_ADDR), as `npm start` lays them out. A start
 * that failed only because another program took one of its ports meanwhile is tried once more
 * on new ports; any other failure is reported with every process's last output.
 */
export function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  return startAgainIfPortTaken(() => startGatewayOnce(options));
}

async function startGatewayOnce(given: GatewayOptions): Promise<Gateway> {
  if (given.embedded && given.databaseUrl) {
    throw new Error('startGateway: embedded and databaseUrl exclude each other');
  }
  const options = { ...given, compiledRoot: given.compiledRoot ?? workspaceCompiled };
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-test-'));
  const processes = new Map<string, RunningProcess>();
  const ownDatabase = options.embedded || options.databaseUrl ? undefined : await createTestDatabase();
  const embeddedPort = options.embedded ? await freePort() : 0;
  let embedded: EmbeddedPostgres | undefined;
  const startEmbedded = async () => {
    embedded = await startEmbeddedPostgres({
      dataDir,
      port: embeddedPort,
      logFile: join(dataDir, 'postgres.log'),
    });
    return embedded.url;
  };
  const stopEmbedded = async () => {
    if (embedded) {
      await stopEmbeddedPostgres(embedded);
    }
  };
  const databaseUrl =
    options.databaseUrl ?? ownDatabase?.url ?? (options.embedded ? await startEmbedded() : undefined);
  const { url: natsUrl, process: nats } = await startNatsServer(join(dataDir, 'nats'));
  processes.set('nats', nats);

  const env = await sharedEnv({ dataDir, natsUrl, databaseUrl });
  const rootKey = env.GW_ROOT_KEY ?? '';
  // The public port, known to every process (keypool and proxy refuse it as a Provider), is the
  // proxy's; the edge listens behind it.
  const publicPort = Number(env.GW_EDGE_PORT);
  env.PROXY_ADDR = `127.0.0.1:${publicPort}`;
  env.EDGE_ADDR = `127.0.0.1:${await freePort()}`;
  Object.assign(env, options.env);

  const metrics = new Map<string, string>();
  /** Every process gets a metrics address of its own, kept across restarts. */
  const withMetrics = async (name: string, base: Record<string, string>): Promise<Record<string, string>> => {
    if (!metrics.has(name)) {
      metrics.set(name, `127.0.0.1:${await freePort()}`);
    }
    return { ...base, METRICS_ADDR: metrics.get(name) ?? '' };
  };

  const stop = async () => {
    await Promise.all([...processes.values()].filter((p) => p.name !== 'nats').map((p) => p.stop()));
    await nats.stop();
    await ownDatabase?.drop();
    await stopEmbedded();
    rmSync(dataDir, { recursive: true, force: true });
  };

  const startEdge = async (name: string, port?: number, changes: Record<string, string> = {}) => {
    port ??= await freePort();
    const edge = serviceProcess(
      'edge',
      await withMetrics(name, { ...env, ...changes, PORT: String(port) }),
      options.compiledRoot,
    );
    processes.set(name, edge);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor(() => healthy(baseUrl), `${name} /healthz`, 60_000, 200);
    return baseUrl;
  };

  try {
    for (const service of [...GRPC_SERVICES, 'proxy'] as const) {
      processes.set(service, serviceProcess(service, await withMetrics(service, env), options.compiledRoot));
    }
    await startEdge('edge', splitAddress(env.EDGE_ADDR).port);
    const baseUrl = `http://${env.PROXY_ADDR}`;
    await waitFor(() => healthy(baseUrl), 'the front door /healthz', 60_000, 200);
    let replicas = 0;
    const gateway: Gateway = {
      baseUrl,
      rootKey,
      natsUrl: env.NATS_URL ?? '',
      env,
      processes,
      embeddedDatabase: options.embedded
        ? {
            stop: stopEmbedded,
            start: async () => {
              await startEmbedded();
            },
          }
        : undefined,
      metrics,
      startEdgeReplica: (changes = {}) =>
        startEdge(`edge-${++replicas}`, changes.PORT ? Number(changes.PORT) : undefined, changes),
      async startProxyReplica(changes = {}) {
        const name = `proxy-${++replicas}`;
        const address = `127.0.0.1:${await freePort()}`;
        const replicaEnv = await withMetrics(name, { ...env, ...changes, PROXY_ADDR: address });
        processes.set(name, serviceProcess('proxy', replicaEnv, options.compiledRoot));
        await waitFor(() => serving('proxy', replicaEnv), 'proxy replica serving', 60_000, 200);
        return address;
      },
      async restartService(name, changes = {}) {
        await processes.get(name)?.stop();
        Object.assign(env, changes);
        processes.set(name, serviceProcess(name, await withMetrics(name, env), options.compiledRoot));
        await waitFor(() => serving(name, env), `${name} serving again`, 60_000, 200);
      },
      async request(path, init = {}) {
        const { key = gateway.rootKey, json, base = baseUrl, headers, undocumented, ...rest } = init;
        const merged = new Headers(headers);
        if (key !== null) {
          merged.set('authorization', `Bearer ${key}`);
        }
        if (json !== undefined) {
          merged.set('content-type', 'application/json');
        }
        const response = await fetch(`${base}${path}`, {
          ...rest,
          headers: merged,
          body: json === undefined ? rest.body : JSON.stringify(json),
        });
        if (!undocumented) {
          await checkAgainstDocument(rest.method ?? 'GET', response.url || `${base}${path}`, response);
        }
        return response;
      },
      stop,
    };
    return gateway;
  } catch (error) {
    const logs = lastOutputs(processes.values());
    await stop();
    throw new Error(`gateway did not start: ${String(error)}\n${logs}`);
  }
}
