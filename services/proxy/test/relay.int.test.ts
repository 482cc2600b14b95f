import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeCaller, NO_INHERITED, SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import { freePort, startGateway, startProcess, waitFor, type Gateway } from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MockUpstream } from '@gw/testkit';
import { waitForRoute } from '@gw/testkit';

/**
 * Edge → proxy → mock upstream, every process real. Keys are created through POST /x-keys and
 * routing through PUT /x-config, so the proxy reads its pool from the keypool snapshot and the
 * config service and reloads on gw.keys.changed / gw.config.updated. Each test gets its own Level,
 * models and keys, so round robin and sleeping state never leak between tests.
 */
describe('proxy relay through the edge', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let nc: NatsConnection;
  let rootId: number;
  let client: OpenAI;
  const usage: events.UsageRecorded[] = [];

  const secret = (name: string) => `${name}-${randomBytes(12).toString('hex')}`;

  const created: number[] = [];

  async function addKey(level: number, secretKey: string, provider = mock.url): Promise<number> {
    const response = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secretKey, Level: level, Provider: provider },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const id = ((await response.json()) as { Key: { ID: number } }).Key.ID;
    created.push(id);
    return id;
  }

  async function configure(values: Record<string, string>): Promise<void> {
    const response = await gw.request('/x-config', { method: 'PUT', json: values });
    expect(response.status, await response.clone().text()).toBe(200);
  }

  /** One Level with the given keys; `model` is routed there. */
  async function level(
    level: number,
    model: string,
    keys: Array<{ secret: string; provider?: string }>,
    config: Record<string, string> = {},
  ) {
    const ids: number[] = [];
    for (const key of keys) {
      ids.push(await addKey(level, key.secret, key.provider));
    }
    await configure({ LEVEL_MAPPER: `${model}=${level}`, ...config });
    await waitForRoute(gw, model, level, ids);
    return ids;
  }

  const usageFor = (keyId: number) => usage.filter((event) => event.keyId === BigInt(keyId));

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({
      env: {
        GW_PUBLIC_URL: 'https://gateway.example.test',
        GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
        PROXY_UPSTREAM_TIMEOUT_MS: '1500',
        PROXY_ANSWER_TIMEOUT_MS: '1500',
        PROXY_USAGE_GRACE_MS: '300',
        PROXY_LEVEL_COOLDOWN_MS: '1500',
        PROXY_PROBE_INTERVAL_MS: '2000',
      },
    });
    nc = await connect({ servers: gw.natsUrl });
    const sub = nc.subscribe(SUBJECTS.usageRecorded);
    void (async () => {
      for await (const msg of sub) {
        usage.push(events.UsageRecorded.fromJSON(JSON.parse(new TextDecoder().decode(msg.data))));
      }
    })();
    const me = (await (await gw.request('/dashboard/status')).json()) as { id: number };
    rootId = me.id;
    client = new OpenAI({ apiKey: gw.rootKey, baseURL: `${gw.baseUrl}/v1`, maxRetries: 0 });
  });

  // Each test leaves an empty pool behind, so Levels can be reused (the next test waits until the
  // proxy routes its model over exactly its own keys).
  afterEach(async () => {
    for (const id of created.splice(0)) {
      expect((await gw.request(`/x-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
    }
  });

  afterAll(async () => {
    await nc.drain();
    await gw.stop();
    await mock.stop();
  });

  it('serves a chat completion through the official SDK and records one usage event', async () => {
    const k = secret('chat');
    const [id] = await level(1, 'gpt-chat', [{ secret: k }], { MODEL_MAPPER: 'chat-alias=gpt-chat' });
    mock.set(k, { usage: { prompt_tokens: 21, completion_tokens: 9, cached: 4 } });

    const completion = await client.chat.completions.create({
      model: 'chat-alias',
      messages: [{ role: 'user', content: 'hi' }],
    });

    expect(completion.choices[0]?.message.content).toBe(`hello from ${k}`);
    const seen = mock.for(k);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body.model).toBe('gpt-chat');
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${k}`);
    expect(seen[0]?.headers['x-gw-internal-token']).toBeUndefined();
    expect(seen[0]?.headers['x-gw-account']).toBeUndefined();
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'usage event', 5_000, 20);
    const event = usageFor(id ?? 0)[0];
    expect(event).toMatchObject({
      accountId: BigInt(rootId),
      ownerId: BigInt(rootId),
      modelRequested: 'chat-alias',
      modelServed: 'gpt-chat',
      level: 1,
      path: '/v1/chat/completions',
      status: 200,
      promptTokens: 21n,
      completionTokens: 9n,
      cachedTokens: 4n,
      callCount: 1,
      partial: false,
    });
    expect(event?.eventId).toMatch(/^evt_/);
  });

  it('serves embeddings through the official SDK', async () => {
    const k = secret('embed');
    const [id] = await level(2, 'embed-1', [{ secret: k }]);
    mock.set(k, { usage: { prompt_tokens: 5, completion_tokens: 0 } });
    const result = await client.embeddings.create({ model: 'embed-1', input: 'hello' });
    expect(result.data[0]?.embedding).toHaveLength(3);
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'usage event', 5_000, 20);
    expect(usageFor(id ?? 0)[0]).toMatchObject({ path: '/v1/embeddings', promptTokens: 5n });
  });

  it('streams chunks through the SDK, asks upstream for usage and hides the usage chunk', async () => {
    const k = secret('stream');
    const [id] = await level(3, 'gpt-stream', [{ secret: k }]);
    mock.set(k, { chunks: 5, usage: { prompt_tokens: 13, completion_tokens: 5 } });

    const stream = await client.chat.completions.create({
      model: 'gpt-stream',
      stream: true,
      messages: [{ role: 'user', content: 'count' }],
    });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      sawUsage ||= chunk.usage != null;
      expect(chunk.choices.length).toBeGreaterThan(0);
    }

    expect(text).toBe('tok0 tok1 tok2 tok3 tok4 ');
    expect(sawUsage).toBe(false);
    expect(mock.for(k)[0]?.body.stream_options).toEqual({ include_usage: true });
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'usage event', 5_000, 20);
    expect(usageFor(id ?? 0)[0]).toMatchObject({ promptTokens: 13n, completionTokens: 5n, partial: false });
  });

  it('passes the usage chunk through when the client asked for it', async () => {
    const k = secret('asked');
    await level(4, 'gpt-asked', [{ secret: k }]);
    const stream = await client.chat.completions.create({
      model: 'gpt-asked',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'count' }],
    });
    let reported: number | undefined;
    for await (const chunk of stream) {
      reported = chunk.usage?.completion_tokens ?? reported;
    }
    expect(reported).toBe(7);
  });

  it('delivers the first chunk to the client before upstream has finished', async () => {
    const k = secret('slow');
    await level(5, 'gpt-slow', [{ secret: k }]);
    mock.set(k, { chunks: 6, chunkDelayMs: 250 });

    const stream = await client.chat.completions.create({
      model: 'gpt-slow',
      stream: true,
      messages: [{ role: 'user', content: 'slow' }],
    });
    let upstreamDoneAtFirstContent: boolean | undefined;
    for await (const chunk of stream) {
      if (upstreamDoneAtFirstContent === undefined && chunk.choices[0]?.delta.content) {
        upstreamDoneAtFirstContent = mock.for(k)[0]?.finishedAt !== undefined;
      }
    }
    // The first chunk reached us while upstream was still writing the other five.
    expect(upstreamDoneAtFirstContent).toBe(false);
    expect(mock.for(k)[0]?.finishedAt).toBeDefined();
  });

  it('fails over to the next key on a 500 and bills only the key that served', async () => {
    const bad = secret('fail500');
    const good = secret('good');
    const [badId, goodId] = await level(6, 'gpt-failover', [{ secret: bad }, { secret: good }]);
    mock.set(bad, { status: 500 });

    // Two calls: round robin starts one of them on the failing key.
    for (let i = 0; i < 2; i += 1) {
      const completion = await client.chat.completions.create({
        model: 'gpt-failover',
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(completion.choices[0]?.message.content).toBe(`hello from ${good}`);
    }
    expect(mock.for(bad)).toHaveLength(1);
    expect(mock.for(good)).toHaveLength(2);
    await waitFor(async () => usageFor(goodId ?? 0).length === 2, 'usage events', 5_000, 20);
    expect(usageFor(badId ?? 0)).toHaveLength(0);
  });

  it('walks 500, 429, a hung key and a refused connection, then MODEL_FAILOVER and SWITCH_OVER', async () => {
    const k500 = secret('k500');
    const k429 = secret('k429');
    const kHang = secret('khang');
    const backup = secret('backup');
    mock.set(k500, { status: 500 });
    mock.set(k429, { status: 429 });
    mock.set(kHang, { hang: true });
    const ids = [
      await addKey(7, k500),
      await addKey(7, k429),
      await addKey(7, kHang),
      await addKey(7, secret('refused'), `http://127.0.0.1:${await freePort()}`),
      await addKey(8, backup),
    ];
    await configure({
      LEVEL_MAPPER: 'gpt-ladder=7, gpt-ladder-b=7',
      MODEL_FAILOVER: 'gpt-ladder=gpt-ladder-b',
      SWITCH_OVER: '7=8',
    });
    await waitForRoute(gw, 'gpt-ladder', 7, ids);

    const completion = await client.chat.completions.create({
      model: 'gpt-ladder',
      messages: [{ role: 'user', content: 'x' }],
    });

    expect(completion.choices[0]?.message.content).toBe(`hello from ${backup}`);
    // Each failing key was tried once (MODEL_FAILOVER stays on Level 7, whose keys already failed).
    expect(mock.for(k500)).toHaveLength(1);
    expect(mock.for(k429)).toHaveLength(1);
    expect(mock.for(kHang)).toHaveLength(1);
    expect(mock.for(backup)[0]?.body.model).toBe('gpt-ladder');
    await waitFor(async () => usageFor(ids[4] ?? 0).length === 1, 'usage event', 5_000, 20);
    expect(usageFor(ids[4] ?? 0)[0]?.level).toBe(8);
  });

  it('answers 503 in the error shape with no usage event when every key fails', async () => {
    const a = secret('down-a');
    const b = secret('down-b');
    const [aId, bId] = await level(9, 'gpt-down', [{ secret: a }, { secret: b }]);
    mock.set(a, { status: 500 });
    mock.set(b, { status: 502 });
    const before = usage.length;

    const response = await gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-down', messages: [] },
    });

    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'unavailable' });
    expect(typeof body.error.message).toBe('string');
    // A later call that is billed is the barrier: the outbox publishes in order, so once its event
    // is here, an event of the failed call would be here too.
    mock.set(a, {});
    const served = await gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-down', messages: [] },
    });
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    await waitFor(async () => usageFor(aId ?? 0).length === 1, 'the served call billed');
    expect(usage.length).toBe(before + 1);
    expect(usageFor(bId ?? 0)).toHaveLength(0);
  });

  it('puts a key whose credentials are refused to sleep and enqueues one alert mail for the owner', async () => {
    const bad = secret('c403');
    const [badId] = await level(5, 'gpt-auth', [{ secret: bad }]);
    mock.set(bad, { status: 403 });
    const response = await gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-auth', messages: [] },
    });
    expect(response.status).toBe(503);
    await response.arrayBuffer();
    const redis = new Redis(gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      // The mailer may be sending it right now: its lock key is not a second job.
      const jobs = (await redis.keys(`${gw.env.GW_QUEUE_PREFIX}:mail:key-auth-${rootId}-${badId}-*`)).filter(
        (key) => !key.endsWith(':lock'),
      );
      expect(jobs).toHaveLength(1);
      const data = JSON.parse((await redis.hget(jobs[0] ?? '', 'data')) ?? '{}') as Record<string, string>;
      expect(data).toMatchObject({ kind: 'key_auth_failed', keyId: String(badId), ownerId: String(rootId) });
      expect(JSON.stringify(data)).not.toContain(bad);
    } finally {
      redis.disconnect();
    }
    // Asleep now: the next call does not try it again.
    await (
      await gw.request('/v1/chat/completions', { method: 'POST', json: { model: 'gpt-auth', messages: [] } })
    ).arrayBuffer();
    expect(mock.for(bad)).toHaveLength(1);
  });

  it('relays a client error once, without failover', async () => {
    const a = secret('c400');
    const b = secret('c400-next');
    await level(0, 'gpt-bad-body', [{ secret: a }, { secret: b }]);
    mock.set(a, { status: 400 });
    // Two calls: the one that starts on the key answering 400 gets that 400, and nothing more.
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const response = await gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-bad-body', messages: 'nope' },
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.sort()).toEqual([200, 400]);
    expect(mock.for(a)).toHaveLength(1);
    expect(mock.for(b)).toHaveLength(1);
  });

  it('puts a key to sleep after three consecutive failures, for every replica, shown in /x-route and /x-conf', async () => {
    const bad = secret('sleepy');
    const good = secret('awake');
    const [badId, goodId] = await level(1, 'gpt-sleep', [{ secret: bad }, { secret: good }]);
    mock.set(bad, { status: 503 });
    for (let i = 0; i < 8; i += 1) {
      const response = await gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-sleep', messages: [] },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    // Every other call starts on the bad key; after its third failure it sleeps.
    expect(mock.for(bad)).toHaveLength(3);
    expect(mock.for(good)).toHaveLength(8);

    // A second proxy replica sees the same sleeping key (state in Redis, not in memory).
    const replicaAddr = `127.0.0.1:${await freePort()}`;
    const replica = startProcess(
      'proxy-replica',
      process.execPath,
      ['--import', 'tsx', join('services', 'proxy', 'src', 'main.ts')],
      {
        cwd: fileURLToPath(new URL('../../..', import.meta.url)),
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...gw.env,
          PROXY_ADDR: replicaAddr,
          GW_DATA_DIR: join(gw.env.GW_DATA_DIR ?? '', 'replica'),
        },
      },
    );
    try {
      await waitFor(
        async () => (await fetch(`http://${replicaAddr}/healthz`)).ok,
        'proxy replica',
        20_000,
        100,
      );
      for (let i = 0; i < 4; i += 1) {
        const response = await fetch(`http://${replicaAddr}/v1/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-gw-internal-token': gw.env.GW_INTERNAL_TOKEN ?? '',
            'x-gw-account': encodeCaller({
              accountId: String(rootId),
              ownerId: String(rootId),
              allowModels: '',
              allowLevels: '',
              modelMapper: '',
              resources: '',
              limits: {},
              modelLimits: '',
              inherited: NO_INHERITED,
            }),
          },
          body: JSON.stringify({ model: 'gpt-sleep', messages: [] }),
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect(mock.for(bad)).toHaveLength(3);
      expect(mock.for(good)).toHaveLength(12);
    } finally {
      await replica.stop();
    }

    // The owner can see the decision and the key states without calling upstream.
    const route = (await (await gw.request(`/x-route?model=gpt-sleep&user=${rootId}`)).json()) as {
      MappedModel: string;
      Levels: number[];
      Steps: Array<{ Level: number; Keys: number[] }>;
      Keys: Array<{ ID: number; State: string; LastFailure?: string; WakeAt?: string }>;
    };
    expect(route).toMatchObject({
      MappedModel: 'gpt-sleep',
      Levels: [1],
      Steps: [{ Level: 1, Keys: [goodId] }],
    });
    expect(route.Keys.find((key) => key.ID === badId)).toMatchObject({
      State: 'sleeping',
      LastFailure: 'server_error',
    });
    expect(Date.parse(route.Keys.find((key) => key.ID === badId)?.WakeAt ?? '') - Date.now()).toBeGreaterThan(
      4 * 60_000,
    );
    expect(route.Keys.find((key) => key.ID === goodId)).toMatchObject({ State: 'active' });

    // The shared state is what the owner sees in /x-conf, and DelKeys wakes the key for every replica.
    const overview = (await (await gw.request('/x-conf')).json()) as {
      SleepingKeys: Array<{ ID: number; SleepTimes: number }>;
    };
    expect(overview.SleepingKeys.map((key) => key.ID)).toContain(badId);
    expect((await gw.request('/x-conf', { method: 'POST', json: { DelKeys: true } })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      await (
        await gw.request('/v1/chat/completions', {
          method: 'POST',
          json: { model: 'gpt-sleep', messages: [] },
        })
      ).arrayBuffer();
    }
    expect(mock.for(bad)).toHaveLength(4);
  });

  it('switches a Level to its backup after more than 5 failures in a minute, and back after the cool-down', async () => {
    const f1 = secret('lvl-f1');
    const f2 = secret('lvl-f2');
    const backup = secret('lvl-backup');
    mock.set(f1, { status: 500 });
    mock.set(f2, { status: 502 });
    const ids = [await addKey(5, f1), await addKey(5, f2), await addKey(6, backup)];
    await configure({ LEVEL_MAPPER: 'gpt-switch=5', SWITCH_OVER: '5=6' });
    await waitForRoute(gw, 'gpt-switch', 5, ids);
    const switches: events.LevelSwitched[] = [];
    const sub = nc.subscribe(SUBJECTS.levelSwitched(rootId));
    void (async () => {
      for await (const msg of sub) {
        switches.push(events.LevelSwitched.fromJSON(JSON.parse(new TextDecoder().decode(msg.data))));
      }
    })();
    const call = async () => {
      const response = await gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-switch', messages: [] },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    };
    const primaryHits = () => mock.for(f1).length + mock.for(f2).length;

    for (let i = 0; i < 3; i += 1) {
      await call();
    }
    expect(primaryHits()).toBe(6);
    await waitFor(async () => switches.length === 1, 'level switched event', 3_000, 20);
    expect(switches[0]).toMatchObject({ ownerId: BigInt(rootId), level: 5, switchedBack: false });

    // Wake the keys: the Level stays switched, so its keys are not tried first.
    expect((await gw.request('/x-conf', { method: 'POST', json: { DelKeys: true } })).status).toBe(200);
    await call();
    expect(primaryHits()).toBe(6);

    // After the cool-down the primary is probed again, and the switch-back is announced.
    await waitFor(async () => {
      const route = (await (await gw.request('/x-route?model=gpt-switch')).json()) as {
        SwitchedLevels: number[];
      };
      return route.SwitchedLevels.length === 0;
    }, 'the cool-down over');
    await call();
    expect(primaryHits()).toBe(8);
    await waitFor(async () => switches.length === 2, 'switched back event', 3_000, 20);
    expect(switches[1]).toMatchObject({ level: 5, switchedBack: true });
    sub.unsubscribe();
    // Counted once each way, by the proxy that announced it.
    const scraped = await (await fetch(`http://${gw.metrics.get('proxy') ?? ''}/metrics`)).text();
    for (const direction of ['backup', 'back']) {
      const line = scraped
        .split('\n')
        .find(
          (candidate) =>
            candidate.startsWith('gw_level_switches_total{') &&
            candidate.includes('level="5"') &&
            candidate.includes(`direction="${direction}"`),
        );
      expect(line, direction).toMatch(/\} 1$/);
    }
  });

  it('refuses an unknown key at the edge before anything reaches the proxy', async () => {
    const response = await gw.request('/v1/chat/completions', {
      method: 'POST',
      key: 'sk-not-a-key',
      json: { model: 'x', messages: [] },
    });
    expect(response.status).toBe(401);
  });

  it('aborts upstream after the usage grace when the client leaves mid-stream', async () => {
    const k = secret('leaver');
    const [id] = await level(2, 'gpt-leave', [{ secret: k }]);
    mock.set(k, { chunks: 100, chunkDelayMs: 50, omitUsage: true });

    const controller = new AbortController();
    const response = await fetch(`${gw.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-leave',
        stream: true,
        messages: [{ role: 'user', content: 'long' }],
      }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();

    // Upstream would stream for five more seconds: the proxy cut it instead of reading it out.
    await waitFor(async () => mock.for(k)[0]?.abortedAt !== undefined, 'upstream aborted');
    expect(mock.for(k)[0]?.finishedAt).toBeUndefined();
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'partial usage event', 5_000, 20);
    const event = usageFor(id ?? 0)[0];
    expect(event?.partial).toBe(true);
    expect(event?.completionTokens).toBeGreaterThan(0n);
  });

  it('refuses calls to the proxy that do not carry the internal token', async () => {
    const response = await fetch(`http://${gw.env.PROXY_ADDR}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gw-account': Buffer.from(
          JSON.stringify({ accountId: '1', ownerId: '1', allowModels: '', allowLevels: '', modelMapper: '' }),
        ).toString('base64'),
      },
      body: JSON.stringify({ model: 'gpt-chat', messages: [] }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
  });

  it('answers 503 with Retry-After at the earliest wake, and probes a key asleep for its upstream back to life', async () => {
    const flaky = secret('probe-flaky');
    const revoked = secret('probe-revoked');
    const [flakyId] = await level(6, 'gpt-probe', [{ secret: flaky }]);
    await level(7, 'gpt-probe-auth', [{ secret: revoked }]);
    mock.set(flaky, { status: 500 });
    mock.set(revoked, { status: 401 });
    const call = (model: string) =>
      gw.request('/v1/chat/completions', { method: 'POST', json: { model, messages: [] } });

    // Three failures put the flaky key to sleep (5 min); the revoked one sleeps at once (30 min).
    for (let i = 0; i < 3; i += 1) {
      expect((await call('gpt-probe')).status).toBe(503);
    }
    expect((await call('gpt-probe-auth')).status).toBe(503);
    const route = (await (await gw.request('/x-route?model=gpt-probe')).json()) as {
      Keys: Array<{ ID: number; Name: string; State: string; WakeAt?: string; LastFailure?: string }>;
    };
    expect(route.Keys).toEqual([
      expect.objectContaining({ ID: flakyId, Name: '', State: 'sleeping', LastFailure: 'server_error' }),
    ]);

    // Asleep: the probe of this second goes to the flaky key (still failing), then a plain 503 with
    // Retry-After at its wake time; no call reaches a key that is not probed.
    const probed = await call('gpt-probe');
    expect(probed.status).toBe(503);
    expect(mock.for(flaky)).toHaveLength(4);
    const asleep = await call('gpt-probe');
    expect(asleep.status).toBe(503);
    expect(Number(asleep.headers.get('retry-after'))).toBeGreaterThan(250);
    expect(mock.for(flaky)).toHaveLength(4);

    // The upstream recovers: the next probe (two seconds later) finds it, and the key is awake again.
    mock.set(flaky, {});
    await waitFor(async () => (await call('gpt-probe')).status === 200, 'a probe that succeeds', 8_000, 250);
    expect((await call('gpt-probe')).status).toBe(200);
    const awake = (await (await gw.request('/x-route?model=gpt-probe')).json()) as {
      Keys: Array<{ State: string }>;
    };
    expect(awake.Keys[0]?.State).toBe('active');

    // A key asleep for its credentials is never probed: it stays asleep, with its Retry-After.
    mock.set(revoked, {});
    const seen = mock.for(revoked).length;
    for (let i = 0; i < 3; i += 1) {
      const refused = await call('gpt-probe-auth');
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1700);
      await new Promise((resolve) => setTimeout(resolve, 800));
    }
    expect(mock.for(revoked)).toHaveLength(seen);
  });
});
