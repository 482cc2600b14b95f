import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, encodeCaller, type CallerIdentity } from '@gw/kit';
import type { events } from '@gw/proto';
import { waitFor } from '@gw/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FailureClass } from '../src/domain/key-health.js';
import type { ProxyDeps } from '../src/deps.js';
import { ownerPool, poolKey, type OwnerPool, type PoolKey } from '../src/domain/pool.js';
import type { KeyHealthStore, KeySource, PoolState, UsageOutbox } from '../src/domain/ports.js';
import { RoundRobin } from '../src/domain/route-plan.js';
import { createHttpServer } from '../src/transport/http/server.js';
import { guardedLookup } from '../src/transport/upstream/address-guard.js';
import { CloudBTokens } from '../src/transport/upstream/cloud-b-tokens.js';
import { UpstreamClient } from '../src/transport/upstream/http.js';
import { MockUpstream } from './mock-upstream.js';

/**
 * The relay in-process against the mock upstream, with in-memory ports: the guards and stream
 * faults that are awkward to provoke through the whole gateway (stream faults, the outbox bound).
 */
const TOKEN = 'internal-token-for-tests';
const caller: CallerIdentity = {
  accountId: '5',
  ownerId: '1',
  allowModels: '',
  allowLevels: '',
  modelMapper: '',
  resources: '',
};

class MemoryOutbox implements UsageOutbox {
  full = false;
  readonly events: events.UsageRecorded[] = [];
  get size() {
    return this.events.length;
  }
  isFull() {
    return this.full;
  }
  async append(event: events.UsageRecorded) {
    this.events.push(event);
  }
}

class MemoryHealth implements KeyHealthStore {
  readonly failures: Array<[string, FailureClass]> = [];
  async state(): Promise<PoolState> {
    return { sleeping: new Set(), sleepDetails: new Map(), switched: new Set(), cooledDown: [] };
  }
  async recordFailure(_owner: string, keyId: string, _level: number, failure: FailureClass) {
    this.failures.push([keyId, failure]);
    return this.failures.length;
  }
  async recordModelFailure(_owner: string, keyId: string) {
    this.failures.push([keyId, 'model']);
  }
  async recordSuccess() {}
  async claimProbe() {
    return false;
  }
  async switchLevel() {
    return true;
  }
  async switchBack() {
    return true;
  }
}

describe('relay guards and stream faults', () => {
  let mock: MockUpstream;
  let server: Server;
  let base: string;
  let outbox: MemoryOutbox;
  let health: MemoryHealth;
  let roundRobin: RoundRobin;
  let pool: OwnerPool;
  let alerted: string[] = [];

  beforeAll(async () => {
    mock = await MockUpstream.start();
    const keys: KeySource = {
      get: async () => pool,
      close: async () => undefined,
    };
    const tokens = new CloudBTokens(`${mock.url}/token`);
    // The relay's own port stands for the gateway's listen addresses (filled in once it listens).
    const self = { ports: [] as number[], endpoints: [], hosts: ['gateway.example.test'] };
    const deps: ProxyDeps = {
      config: {
        GW_INTERNAL_TOKEN: TOKEN,
        PROXY_UPSTREAM_TIMEOUT_MS: 1_000,
        PROXY_STREAM_IDLE_MS: 1_000,
        PROXY_USAGE_GRACE_MS: 200,
        PROXY_JSON_LIMIT_BYTES: 1024 * 1024,
        PROXY_UPLOAD_LIMIT_BYTES: 1024 * 1024,
        PROXY_BODY_TIMEOUT_MS: 5_000,
        PROXY_ANSWER_TIMEOUT_MS: 1_000,
        PROXY_LEVEL_COOLDOWN_MS: 60_000,
      },
      self,
      keys,
      upstream: new UpstreamClient({ idleSocketMs: 4_000 }),
      // Each test starts with a fresh outbox, health store and round-robin cursor (so the first
      // key of a pool is tried first): read them per request.
      get health() {
        return health;
      },
      get outbox() {
        return outbox;
      },
      get roundRobin() {
        return roundRobin;
      },
      levels: { levelSwitched: () => undefined },
      alerts: { keyAuthFailed: async (ownerId, keyId) => void alerted.push(`${ownerId}/${keyId}`) },
      providers: {
        defaults: {
          cloudAApiVersions: {
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
    server = createHttpServer(deps);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self.ports.push((server.address() as AddressInfo).port);
    base = `http://127.0.0.1:${self.ports[0]}`;
  });

  beforeEach(() => {
    outbox = new MemoryOutbox();
    health = new MemoryHealth();
    roundRobin = new RoundRobin();
    alerted = [];
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await mock.stop();
  });

  const useKeys = (keys: Array<Partial<PoolKey>>, ownerIsRoot = true) => {
    pool = ownerPool({
      ownerId: '1',
      version: '1',
      ownerIsRoot,
      config: {},
      keys: keys.map((key, i) =>
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
  };

  const usePool = (secrets: string[]) => useKeys(secrets.map((secret) => ({ secret })));

  const call = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gw-internal-token': TOKEN,
        'x-gw-account': encodeCaller(caller),
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('answers 503 before calling upstream when the usage outbox is over its bound', async () => {
    usePool(['full-1']);
    outbox.full = true;
    const response = await call({ model: 'm', messages: [] });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    expect(mock.for('full-1')).toHaveLength(0);
  });

  it('alerts the owner once per refused credential, and never for a client error', async () => {
    // One key, so round robin cannot skip it: its 401 is the only attempt.
    usePool(['auth-bad']);
    mock.set('auth-bad', { status: 401 });
    expect((await call({ model: 'm', messages: [] })).status).toBe(503);
    expect(mock.for('auth-bad')).toHaveLength(1);
    expect(alerted).toEqual(['1/1']);

    usePool(['client-error']);
    mock.set('client-error', { status: 400 });
    expect((await call({ model: 'm', messages: [] })).status).toBe(400);
    expect(alerted).toEqual(['1/1']);
  });

  it('refuses a wrong internal token', async () => {
    usePool(['token-1']);
    const response = await call({ model: 'm' }, { 'x-gw-internal-token': 'nope' });
    expect(response.status).toBe(401);
    expect(mock.for('token-1')).toHaveLength(0);
  });

  it('answers the upstream 429 when every key is rate limited, with no usage', async () => {
    usePool(['rl-1', 'rl-2']);
    mock.set('rl-1', { status: 429 });
    mock.set('rl-2', { status: 429 });
    const response = await call({ model: 'm', messages: [] });
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
    expect(outbox.events).toHaveLength(0);
    expect(health.failures.map(([, failure]) => failure)).toEqual(['rate_limit', 'rate_limit']);
  });

  it('never retries after the first byte: a reset mid-stream cuts the client and bills a partial call', async () => {
    usePool(['reset-1', 'reset-2']);
    mock.set('reset-1', { chunks: 20, chunkDelayMs: 10, resetAfter: 10 });
    const response = await call({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(mock.for('reset-1')).toHaveLength(1);
    expect(mock.for('reset-2')).toHaveLength(0);
    await waitFor(async () => outbox.events.length === 1, 'the partial usage event');
    expect(outbox.events[0]?.partial).toBe(true);
    expect(outbox.events[0]?.completionTokens).toBeGreaterThan(0n);
  });

  it('estimates and flags a stream that ends without its usage chunk (whole, so not partial)', async () => {
    usePool(['nousage-1']);
    mock.set('nousage-1', { chunks: 4, omitUsage: true });
    const response = await call({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const text = await response.text();
    expect(text).toContain('data: [DONE]');
    await waitFor(async () => outbox.events.length === 1, 'the usage event');
    expect(outbox.events[0]).toMatchObject({ estimated: true, partial: false });
    expect(outbox.events[0]?.promptTokens).toBeGreaterThan(0n);
    expect(outbox.events[0]?.completionTokens).toBeGreaterThan(0n);
  });

  it('respects an explicit zero usage from upstream', async () => {
    usePool(['zero-1']);
    mock.set('zero-1', { chunks: 2, usage: { prompt_tokens: 0, completion_tokens: 0 } });
    const response = await call({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const text = await response.text();
    expect(text).not.toContain('"choices":[]');
    await waitFor(async () => outbox.events.length === 1, 'the usage event');
    expect(outbox.events[0]).toMatchObject({ promptTokens: 0n, completionTokens: 0n, partial: false });
  });

  it('cuts a response body that goes silent past the idle timeout', async () => {
    usePool(['idle-1']);
    mock.set('idle-1', { chunks: 3, chunkDelayMs: 1_500 });
    const response = await call({ model: 'm', stream: true, messages: [] });
    await expect(response.text()).rejects.toThrow();
    // Cut by the proxy, not read out: upstream never finished its three chunks.
    await waitFor(async () => mock.for('idle-1')[0]?.abortedAt !== undefined, 'upstream cut');
    expect(mock.for('idle-1')[0]?.finishedAt).toBeUndefined();
  });

  it('calls a cloud_a key by deployment, api-version and api-key header', async () => {
    useKeys([
      {
        type: 'cloud_a',
        secret: 'cloud-a-secret-0001',
        config: {
          provider_type: 'cloud_a',
          model_mapping: { 'gpt-4o*': 'dep-4o', '*': 'dep-default' },
          api_versions: { chat: '2024-06-01' },
        },
      },
    ]);
    const response = await call({ model: 'gpt-4o-mini', messages: [] });
    expect(response.status).toBe(200);
    const seen = mock.for('cloud-a-secret-0001');
    expect(seen[0]?.path).toBe('/openai/deployments/dep-4o/chat/completions');
    expect(seen[0]?.search).toBe('?api-version=2024-06-01');
    expect(seen[0]?.headers.authorization).toBeUndefined();

    const embed = await fetch(`${base}/v1/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gw-internal-token': TOKEN,
        'x-gw-account': encodeCaller(caller),
      },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }),
    });
    expect(embed.status).toBe(200);
    expect(mock.for('cloud-a-secret-0001')[1]).toMatchObject({
      path: '/openai/deployments/dep-default/embeddings',
      search: '?api-version=v-embed',
    });
  });

  it('calls a cloud_b key with an access token exchanged for a signed JWT, cached between calls', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const email = 'svc@project.iam.example.com';
    useKeys([
      {
        type: 'cloud_b',
        secret: 'x'.repeat(51),
        config: {
          provider_type: 'cloud_b',
          base_url: `${mock.url}/vertex/v1/projects/p1/locations/l1/endpoints/openapi`,
          project_id: 'p1',
          client_email: email,
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      },
    ]);
    for (let i = 0; i < 2; i += 1) {
      const response = await call({ model: 'gemini-x', messages: [] });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const exchanges = mock.requests.filter((request) => request.path === '/token');
    expect(exchanges).toHaveLength(1);
    const [header, claims, signature] = String(exchanges[0]?.body.assertion).split('.');
    expect(
      verify(
        'RSA-SHA256',
        Buffer.from(`${header}.${claims}`),
        createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })),
        Buffer.from(signature ?? '', 'base64url'),
      ),
    ).toBe(true);
    expect(JSON.parse(Buffer.from(claims ?? '', 'base64url').toString())).toMatchObject({
      iss: email,
      aud: `${mock.url}/token`,
    });
    const served = mock.for(`tok-${email}`);
    expect(served).toHaveLength(2);
    expect(served[0]?.path).toBe('/vertex/v1/projects/p1/locations/l1/endpoints/openapi/chat/completions');
  });

  it('never connects to a metadata address, and refuses names that resolve to loopback for a tenant pool', async () => {
    useKeys([
      { provider: 'http://169.254.169.254', secret: 'metadata-key-00001' },
      { provider: mock.url, secret: 'after-metadata-0001' },
    ]);
    const response = await call({ model: 'm', messages: [] });
    expect(response.status).toBe(200);
    expect(health.failures).toEqual([['1', 'connection']]);
    expect(mock.for('after-metadata-0001')).toHaveLength(1);

    const self = { ports: [8080], endpoints: [], hosts: [] };
    const resolve = (rootPool: boolean, port: number) =>
      new Promise<string>((done) => {
        (
          guardedLookup({ rootPool, self }, port) as unknown as (
            host: string,
            options: object,
            cb: (error: Error | null) => void,
          ) => void
        )('localhost', { all: true }, (error) =>
          done(error ? ((error as Error & { code?: string }).code ?? 'error') : 'ok'),
        );
      });
    expect(await resolve(false, 11434)).toBe('EGWREFUSED');
    expect(await resolve(true, 11434)).toBe('ok');
    expect(await resolve(true, 8080)).toBe('EGWREFUSED');
  });

  it('refuses loopback upstreams for a tenant pool at connect time (no request reaches them)', async () => {
    useKeys([{ provider: mock.url, secret: 'tenant-loopback-0001' }], false);
    const response = await call({ model: 'm', messages: [] });
    expect(response.status).toBe(503);
    expect(health.failures).toEqual([['1', 'connection']]);
    expect(mock.for('tenant-loopback-0001')).toHaveLength(0);
    const named = mock.url.replace('127.0.0.1', 'localhost');
    useKeys([{ provider: named, secret: 'tenant-loopback-0002' }], false);
    expect((await call({ model: 'm', messages: [] })).status).toBe(503);
    expect(mock.for('tenant-loopback-0002')).toHaveLength(0);
  });

  it("never dials the gateway's own listen addresses, even for root's pool", async () => {
    useKeys([
      { provider: base, secret: 'self-loop-key-00001' },
      { provider: base.replace('127.0.0.1', '127.0.0.2'), secret: 'self-loop-key-00002' },
      { provider: base.replace('127.0.0.1', 'localhost'), secret: 'self-loop-key-00003' },
      { provider: 'http://0.0.0.0:1', secret: 'self-loop-key-00004' },
      { provider: mock.url, secret: 'after-self-loop-001' },
    ]);
    const response = await call({ model: 'm', messages: [] });
    expect(response.status).toBe(200);
    expect(health.failures).toEqual([
      ['1', 'connection'],
      ['2', 'connection'],
      ['3', 'connection'],
      ['4', 'connection'],
    ]);
    expect(mock.for('after-self-loop-001')).toHaveLength(1);
  });
});
