import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { waitFor, type MockUpstream } from '@gw/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PoolKey } from '../src/domain/pool.js';
import { guardedLookup } from '../src/transport/upstream/address-guard.js';
import { startInProcessProxy, type InProcessProxy } from './in-process-proxy-fixture.js';

/**
 * The relay in-process against the mock upstream, with in-memory ports: the guards and stream
 * faults that are awkward to provoke through the whole gateway (stream faults, the outbox bound).
 */
describe('relay guards and stream faults', () => {
  let proxy: InProcessProxy;
  let mock: MockUpstream;

  beforeAll(async () => {
    proxy = await startInProcessProxy();
    mock = proxy.mock;
  });

  beforeEach(() => proxy.reset());

  afterAll(async () => {
    await proxy.stop();
  });

  const useKeys = (keys: Array<Partial<PoolKey>>, ownerIsRoot = true) => proxy.useKeys(keys, { ownerIsRoot });
  const usePool = (secrets: string[]) => useKeys(secrets.map((secret) => ({ secret })));
  const call = (body: unknown, headers: Record<string, string> = {}) =>
    proxy.call('/v1/chat/completions', {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers 503 before calling upstream when the usage outbox is over its bound', async () => {
    usePool(['full-1']);
    proxy.outbox.full = true;
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
    expect(proxy.alerted).toEqual(['1/1']);

    usePool(['client-error']);
    mock.set('client-error', { status: 400 });
    expect((await call({ model: 'm', messages: [] })).status).toBe(400);
    expect(proxy.alerted).toEqual(['1/1']);
  });

  it('refuses a call whose key is unknown', async () => {
    usePool(['token-1']);
    const response = await call({ model: 'm' }, { authorization: 'Bearer sk-unknown' });
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
    expect(proxy.outbox.events).toHaveLength(0);
    expect(proxy.health.failures.map(([, failure]) => failure)).toEqual(['rate_limit', 'rate_limit']);
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
    await waitFor(async () => proxy.outbox.events.length === 1, 'the partial usage event');
    expect(proxy.outbox.events[0]?.partial).toBe(true);
    expect(proxy.outbox.events[0]?.completionTokens).toBeGreaterThan(0n);
  });

  it('estimates and flags a stream that ends without its usage chunk (whole, so not partial)', async () => {
    usePool(['nousage-1']);
    mock.set('nousage-1', { chunks: 4, omitUsage: true });
    const response = await call({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const text = await response.text();
    expect(text).toContain('data: [DONE]');
    await waitFor(async () => proxy.outbox.events.length === 1, 'the usage event');
    expect(proxy.outbox.events[0]).toMatchObject({ estimated: true, partial: false });
    expect(proxy.outbox.events[0]?.promptTokens).toBeGreaterThan(0n);
    expect(proxy.outbox.events[0]?.completionTokens).toBeGreaterThan(0n);
  });

  it('respects an explicit zero usage from upstream', async () => {
    usePool(['zero-1']);
    mock.set('zero-1', { chunks: 2, usage: { prompt_tokens: 0, completion_tokens: 0 } });
    const response = await call({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const text = await response.text();
    expect(text).not.toContain('"choices":[]');
    await waitFor(async () => proxy.outbox.events.length === 1, 'the usage event');
    expect(proxy.outbox.events[0]).toMatchObject({ promptTokens: 0n, completionTokens: 0n, partial: false });
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

  it('calls an Azure OpenAI (cloud_a) key by deployment, api-version and api-key header', async () => {
    useKeys([
      {
        type: 'cloud_a',
        secret: 'azure-openai-secret-0001',
        config: {
          provider_type: 'cloud_a',
          model_mapping: { 'gpt-4o*': 'dep-4o', '*': 'dep-default' },
          api_versions: { chat: '2024-06-01' },
        },
      },
    ]);
    const response = await call({ model: 'gpt-4o-mini', messages: [] });
    expect(response.status).toBe(200);
    const seen = mock.for('azure-openai-secret-0001');
    expect(seen[0]?.path).toBe('/openai/deployments/dep-4o/chat/completions');
    expect(seen[0]?.search).toBe('?api-version=2024-06-01');
    expect(seen[0]?.headers.authorization).toBeUndefined();

    const embed = await proxy.call('/v1/embeddings', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }),
    });
    expect(embed.status).toBe(200);
    expect(mock.for('azure-openai-secret-0001')[1]).toMatchObject({
      path: '/openai/deployments/dep-default/embeddings',
      search: '?api-version=v-embed',
    });
  });

  it('calls a Vertex AI (cloud_b) key with an access token exchanged for a signed JWT, cached between calls', async () => {
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
    expect(proxy.health.failures).toEqual([['1', 'connection']]);
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
    expect(proxy.health.failures).toEqual([['1', 'connection']]);
    expect(mock.for('tenant-loopback-0001')).toHaveLength(0);
    const named = mock.url.replace('127.0.0.1', 'localhost');
    useKeys([{ provider: named, secret: 'tenant-loopback-0002' }], false);
    expect((await call({ model: 'm', messages: [] })).status).toBe(503);
    expect(mock.for('tenant-loopback-0002')).toHaveLength(0);
  });

  it("never dials the gateway's own listen addresses, even for root's pool", async () => {
    useKeys([
      { provider: proxy.base, secret: 'self-loop-key-00001' },
      { provider: proxy.base.replace('127.0.0.1', '127.0.0.2'), secret: 'self-loop-key-00002' },
      { provider: proxy.base.replace('127.0.0.1', 'localhost'), secret: 'self-loop-key-00003' },
      { provider: 'http://0.0.0.0:1', secret: 'self-loop-key-00004' },
      { provider: mock.url, secret: 'after-self-loop-001' },
    ]);
    const response = await call({ model: 'm', messages: [] });
    expect(response.status).toBe(200);
    expect(proxy.health.failures).toEqual([
      ['1', 'connection'],
      ['2', 'connection'],
      ['3', 'connection'],
      ['4', 'connection'],
    ]);
    expect(mock.for('after-self-loop-001')).toHaveLength(1);
  });
});
