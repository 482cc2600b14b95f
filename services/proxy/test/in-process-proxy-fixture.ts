import type { Server } from 'node:http';
import { AddressList, createLogger, listenHttp, Metrics, NO_INHERITED, type CallerIdentity } from '@gw/kit';
import type { ProxyDeps } from '../src/deps.js';
import { ownerPool, poolKey, type OwnerPool, type PoolKey } from '../src/domain/pool.js';
import type { KeySource } from '../src/domain/ports/key-source.js';
import {
  MemoryAdmission,
  MemoryCallers,
  MemoryHealth,
  MemoryObjects,
  MemoryOutbox,
  MemorySpend,
} from './memory-store/memory-ports.js';
import { BodyBudget } from '../src/domain/body-budget.js';
import { modelLimitTable } from '../src/domain/limits.js';
import { LocalLimiter } from '../src/domain/local-limiter.js';
import { RoundRobin } from '../src/domain/route-plan.js';
import { RealtimeSessions } from '../src/transport/http/realtime-sessions.js';
import { createHttpServer } from '../src/transport/http/server.js';
import { VertexAiTokens } from '../src/transport/upstream/vertex-ai-tokens.js';
import { UpstreamClient } from '../src/transport/upstream/http.js';
import { MockUpstream } from '@gw/testkit';
import WebSocket from 'ws';

/**
 * The proxy's HTTP server in-process against the mock upstream, with in-memory ports: for the
 * guards and faults that are awkward to provoke through the whole gateway. Each test calls
 * `reset()` for a fresh outbox, health store and round-robin cursor (the first key of a pool is
 * tried first).
 */
export const TOKEN = 'internal-token-for-tests';

export const CALLER: CallerIdentity = {
  accountId: '5',
  ownerId: '1',
  allowModels: '',
  allowLevels: '',
  modelMapper: '',
  levelMapper: '',
  resources: '',
  limits: {},
  modelLimits: '',
  inherited: NO_INHERITED,
};

export interface InProcessProxy {
  base: string;
  mock: MockUpstream;
  outbox: MemoryOutbox;
  health: MemoryHealth;
  /** Owners alerted about a refused credential, as `owner/key`. */
  alerted: string[];
  /** The proxy's own listen port (one of the gateway's addresses, never dialled). */
  port: number;
  reset(): void;
  /** The pool every request is served from: keys default to Level 1 at the mock. */
  useKeys(
    keys: Array<Partial<PoolKey>>,
    options?: { ownerIsRoot?: boolean; config?: Record<string, string> },
  ): void;
  /** A gateway key that authenticates as this caller (CALLER with these fields changed). */
  keyFor(caller?: Partial<CallerIdentity>): string;
  /** An AI call with a key of this caller (CALLER unless `caller` changes it). */
  call(
    path: string,
    init?: {
      method?: string;
      body?: BodyInit;
      headers?: Record<string, string>;
      caller?: Partial<CallerIdentity>;
      signal?: AbortSignal;
    },
  ): Promise<Response>;
  /**
   * A WebSocket upgrade (realtime) with a key of this caller: 101 once the session is open (closed again at
   * once), or the refusal's status; `body` is the refusal's body.
   */
  upgrade(
    path: string,
    init?: { caller?: Partial<CallerIdentity> },
  ): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }>;
  stop(): Promise<void>;
}

export async function startInProcessProxy(): Promise<InProcessProxy> {
  const mock = await MockUpstream.start();
  let pool: OwnerPool | undefined;
  const keys: KeySource = {
    get: async () => {
      if (!pool) {
        throw new Error('no pool: call useKeys first');
      }
      return pool;
    },
    staleOwners: () => 0,
    close: async () => undefined,
  };
  const tokens = new VertexAiTokens(`${mock.url}/token`);
  // The proxy's own port stands for the gateway's listen addresses (filled in once it listens).
  const self = { ports: [] as number[], endpoints: [], hosts: ['gateway.example.test'] };
  const state = {
    outbox: new MemoryOutbox(),
    objects: new MemoryObjects(),
    spend: new MemorySpend(),
    health: new MemoryHealth(),
    roundRobin: new RoundRobin(),
    limiter: new LocalLimiter(),
    alerted: [] as string[],
  };
  const callers = new MemoryCallers();
  const keyFor = (caller: Partial<CallerIdentity> = {}) => callers.keyFor({ ...CALLER, ...caller });
  const deps: ProxyDeps = {
    callers,
    tenantPrivate: AddressList.of(''),
    config: {
      GW_INTERNAL_TOKEN: TOKEN,
      PROXY_UPSTREAM_TIMEOUT_MS: 1_000,
      PROXY_ANSWER_TIMEOUT_MS: 1_000,
      PROXY_STREAM_IDLE_MS: 1_000,
      PROXY_USAGE_GRACE_MS: 500,
      PROXY_JSON_LIMIT_BYTES: 1024 * 1024,
      PROXY_UPLOAD_LIMIT_BYTES: 2 * 1024 * 1024,
      PROXY_BODY_TIMEOUT_MS: 1_000,
      PROXY_LEVEL_COOLDOWN_MS: 60_000,
      PROXY_PROBE_INTERVAL_MS: 30_000,
      PROXY_MAX_IN_FLIGHT_PER_ACCOUNT: 32,
      PROXY_SPEND_HOLD_MS: 10_000,
      PROXY_ESTIMATE_OUTPUT_TOKENS: 1_024,
      PROXY_REALTIME_MAX_FRAME_BYTES: 64 * 1024,
    },
    self,
    keys,
    upstream: new UpstreamClient({ idleSocketMs: 4_000 }),
    sessions: new RealtimeSessions(),
    // Two largest uploads of one account at once are one too many.
    bodies: new BodyBudget({ processBytes: 8 * 1024 * 1024, accountBytes: 3 * 1024 * 1024 }),
    get limiter() {
      return state.limiter;
    },
    // Reads the ports from `state` per call, so it uses the ones reset() renews.
    admission: new MemoryAdmission(state),
    defaultModelLimits: modelLimitTable({}),
    // Read per request, so reset() takes effect for the next call.
    get health() {
      return state.health;
    },
    get outbox() {
      return state.outbox;
    },
    get objects() {
      return state.objects;
    },
    get spend() {
      return state.spend;
    },
    get roundRobin() {
      return state.roundRobin;
    },
    levels: { levelSwitched: () => undefined },
    alerts: { keyAuthFailed: async (ownerId, keyId) => void state.alerted.push(`${ownerId}/${keyId}`) },
    providers: {
      defaults: {
        azureOpenAiApiVersions: {
          chat: 'v-chat',
          embeddings: 'v-embed',
          audio: 'v-audio',
          images: 'v-images',
          responses: 'v-resp',
        },
      },
      accessToken: (key) => tokens.get(key),
    },
    log: createLogger('proxy-test', 'silent'),
  };
  const server: Server = createHttpServer(deps, new Metrics());
  const port = await listenHttp(server, { host: '127.0.0.1', port: 0 }, deps.log, 'proxy');
  self.ports.push(port);
  const base = `http://127.0.0.1:${port}`;

  return {
    base,
    mock,
    port,
    get outbox() {
      return state.outbox;
    },
    get health() {
      return state.health;
    },
    get alerted() {
      return state.alerted;
    },
    keyFor,
    reset() {
      state.outbox = new MemoryOutbox();
      state.objects = new MemoryObjects();
      state.spend = new MemorySpend();
      state.health = new MemoryHealth();
      state.roundRobin = new RoundRobin();
      state.limiter = new LocalLimiter();
      state.alerted = [];
    },
    useKeys(list, options = {}) {
      pool = ownerPool({
        ownerId: '1',
        version: '1',
        ownerIsRoot: options.ownerIsRoot ?? true,
        config: options.config ?? {},
        keys: list.map((key, i) =>
          poolKey({
            id: String(i + 1),
            level: 1,
            provider: mock.url,
            secret: 's',
            active: true,
            type: 'standard',
            config: {},
            ...key,
          }),
        ),
      });
    },
    call(path, init = {}) {
      return fetch(`${base}${path}`, {
        method: init.method ?? 'POST',
        headers: { authorization: `Bearer ${keyFor(init.caller)}`, ...init.headers },
        body: init.body,
        signal: init.signal,
      });
    },
    upgrade(path, init = {}) {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(`${base.replace('http', 'ws')}${path}`, {
          headers: { authorization: `Bearer ${keyFor(init.caller)}` },
        });
        ws.once('open', () => {
          ws.close();
          resolve({ status: 101, body: '', headers: {} });
        });
        ws.once('unexpected-response', (_request, response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              headers: response.headers,
            }),
          );
        });
        ws.once('error', reject);
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      deps.upstream.close();
      await mock.stop();
    },
  };
}
