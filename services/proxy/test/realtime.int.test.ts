import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createGrpcClient, SUBJECTS, usd } from '@gw/kit';
import { accounts as accountsProto, events } from '@gw/proto';
import { createUser, startGateway, waitFor, type Gateway } from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MockUpstream } from '@gw/testkit';
import { waitForRoute } from '@gw/testkit';

/** A realtime client through the edge; resolves once the socket is open (or with the refusal status). */
function openSession(
  gw: Gateway,
  model: string,
  key: string,
): Promise<
  { ws: WebSocket; frames: Array<Record<string, unknown>>; closed: Promise<number> } | { status: number }
> {
  const url = `${gw.baseUrl.replace('http', 'ws')}/v1/realtime?model=${encodeURIComponent(model)}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${key}`, 'openai-beta': 'realtime=v1' },
    });
    const frames: Array<Record<string, unknown>> = [];
    const closed = new Promise<number>((done) => ws.once('close', (code) => done(code)));
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.once('open', () => resolve({ ws, frames, closed }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}

function session(result: Awaited<ReturnType<typeof openSession>>) {
  if ('status' in result) {
    throw new Error(`session refused with ${result.status}`);
  }
  return result;
}

describe('GET /v1/realtime through the edge', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let nc: NatsConnection;
  const usage: events.UsageRecorded[] = [];
  const secret = (name: string) => `${name}-${randomBytes(12).toString('hex')}`;

  async function addKey(level: number, secretKey: string): Promise<number> {
    const response = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secretKey, Level: level, Provider: mock.url },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { Key: { ID: number } }).Key.ID;
  }

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({
      env: {
        GW_PUBLIC_URL: 'https://gateway.example.test',
        GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
      },
    });
    nc = await connect({ servers: gw.natsUrl });
    const sub = nc.subscribe(SUBJECTS.usageRecorded);
    void (async () => {
      for await (const msg of sub) {
        usage.push(events.UsageRecorded.fromJSON(JSON.parse(new TextDecoder().decode(msg.data))));
      }
    })();
  });

  afterAll(async () => {
    await nc.drain();
    await gw.stop();
    await mock.stop();
  });

  it('forwards frames both ways and bills every response.done once', async () => {
    const k = secret('rt');
    const keyId = await addKey(1, k);
    expect(
      (await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt*=1' } })).status,
    ).toBe(200);
    await waitForRoute(gw, 'gpt-rt-1', 1, [keyId]);

    const { ws, frames } = session(await openSession(gw, 'gpt-rt-1', gw.rootKey));
    await waitFor(
      async () => frames.some((frame) => frame.type === 'session.created'),
      'session.created',
      3_000,
      20,
    );
    expect(mock.for(k)[0]?.headers.authorization).toBe(`Bearer ${k}`);
    expect(mock.for(k)[0]?.headers['x-gw-account']).toBeUndefined();

    ws.send(JSON.stringify({ type: 'response.create' }));
    ws.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(
      async () => frames.filter((frame) => frame.type === 'response.done').length === 2,
      'two responses',
      3_000,
      20,
    );
    await waitFor(
      async () => usage.filter((event) => event.keyId === BigInt(keyId)).length === 2,
      'two usage events',
      5_000,
      20,
    );
    expect(usage.filter((event) => event.keyId === BigInt(keyId))[0]).toMatchObject({
      path: '/v1/realtime',
      modelRequested: 'gpt-rt-1',
      promptTokens: 10n,
      completionTokens: 20n,
      cachedTokens: 2n,
      audioInTokens: 3n,
      audioOutTokens: 5n,
    });

    ws.close();
    await waitFor(async () => mock.realtimeOpen === 0, 'upstream socket closed', 3_000, 20);
    // The session is one request at the edge and at the proxy, timed when its socket closed.
    for (const process of ['edge', 'proxy']) {
      await waitFor(
        async () =>
          (await (await fetch(`http://${gw.metrics.get(process) ?? ''}/metrics`)).text())
            .split('\n')
            .some(
              (line) =>
                line.startsWith('gw_http_request_duration_seconds_count{') &&
                line.includes('route="/v1/realtime"') &&
                line.includes('status="101"') &&
                line.endsWith('} 1'),
            ),
        `${process} counting the realtime session`,
        3_000,
        20,
      );
    }
  });

  it('applies AllowModels to the session and to every frame that names a model', async () => {
    const created = await gw.request('/x-users', {
      method: 'POST',
      json: { Name: 'rtlimited', Email: 'rtlimited@example.com', CreditGranted: 5, AllowModels: 'gpt-rt*' },
    });
    expect(created.status).toBe(200);
    const userKey = ((await created.json()) as { User: { SecretKey: string } }).User.SecretKey;

    expect(await openSession(gw, 'other-model', userKey)).toEqual({ status: 403 });

    const { ws, frames } = session(await openSession(gw, 'gpt-rt-2', userKey));
    await waitFor(
      async () => frames.some((frame) => frame.type === 'session.created'),
      'session.created',
      3_000,
      20,
    );
    ws.send(JSON.stringify({ type: 'session.update', session: { model: 'other-model' } }));
    await waitFor(async () => frames.some((frame) => frame.type === 'error'), 'error event', 3_000, 20);
    expect(frames.find((frame) => frame.type === 'error')).toMatchObject({
      error: { code: 'model_not_allowed' },
    });
    expect(mock.realtimeFrames.some((frame) => frame.type === 'session.update')).toBe(false);

    ws.send(JSON.stringify({ type: 'session.update', session: { model: 'gpt-rt-3' } }));
    await waitFor(
      async () => frames.some((frame) => frame.type === 'session.updated'),
      'session.updated',
      3_000,
      20,
    );
    ws.close();
  });

  it('counts a session as one request at upgrade, and ends it once its token window is spent', async () => {
    const user = await createUser(gw, { extra: { RPM: 1, TPM: 40 } });
    const { ws, frames, closed } = session(await openSession(gw, 'gpt-rt-1', user.key));
    await waitFor(async () => frames.some((frame) => frame.type === 'session.created'), 'session.created');
    // The session was this minute's one request.
    expect(await openSession(gw, 'gpt-rt-1', user.key)).toEqual({ status: 429 });

    // Each response uses 30 tokens: after the first 30 < 40 the session goes on, after the second it ends.
    ws.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(async () => frames.some((frame) => frame.type === 'response.done'), 'first response');
    ws.send(JSON.stringify({ type: 'response.create' }));
    expect(await closed).toBe(1008);
    expect(frames.filter((frame) => frame.type === 'response.done')).toHaveLength(2);
    expect(frames.at(-1)).toMatchObject({ type: 'error', error: { code: 'rate_limited' } });
  });

  it('refuses an unknown key before upgrading', async () => {
    expect(await openSession(gw, 'gpt-rt-1', 'sk-unknown')).toEqual({ status: 401 });
  });

  it('opens the session on the next key when upstream refuses one', async () => {
    const refusing = secret('rt-refuse');
    const serving = secret('rt-serve');
    mock.set(refusing, { status: 500 });
    const ids = [await addKey(2, refusing), await addKey(2, serving)];
    expect(
      (await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt-fo=2' } })).status,
    ).toBe(200);
    await waitForRoute(gw, 'gpt-rt-fo', 2, ids);

    for (let i = 0; i < 2; i += 1) {
      const { ws, frames } = session(await openSession(gw, 'gpt-rt-fo', gw.rootKey));
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      ws.close();
    }
    expect(mock.for(refusing)).toHaveLength(1);
    expect(mock.for(serving)).toHaveLength(2);
  });

  /** A subaccount allowed the realtime models, with its key. */
  async function realtimeUser(name: string): Promise<{ id: number; key: string }> {
    const created = await gw.request('/x-users', {
      method: 'POST',
      json: { Name: name, Email: `${name}@example.com`, CreditGranted: 5, AllowModels: 'gpt-rt*' },
    });
    expect(created.status).toBe(200);
    const user = ((await created.json()) as { User: { ID: number; SecretKey: string } }).User;
    return { id: user.ID, key: user.SecretKey };
  }

  /** How a session ended: its close code and the error event it got first. */
  async function endedWithin(
    opened: { ws: WebSocket; frames: Array<Record<string, unknown>>; closed: Promise<number> },
    budgetMs: number,
  ) {
    await waitFor(async () => opened.ws.readyState === WebSocket.CLOSED, 'the session closed', budgetMs, 20);
    return { code: await opened.closed, error: opened.frames.find((frame) => frame.type === 'error') };
  }

  /** A Level of its own for the tests that end sessions: `gpt-rt-end*` on Level 4. */
  async function endingLevel() {
    const k = secret('rt-end');
    const keyId = await addKey(4, k);
    expect(
      (await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt-end*=4' } })).status,
    ).toBe(200);
    await waitForRoute(gw, 'gpt-rt-end-1', 4, [keyId]);
  }

  describe('with a subaccount allowed gpt-rt*, on a Level of its own', () => {
    beforeAll(endingLevel);

    it.each([
      ['disabled', (id: number) => gw.request(`/x-users/${id}`, { method: 'PUT', json: { Status: false } })],
      [
        'suspended',
        (id: number) => gw.request(`/x-users/${id}`, { method: 'PUT', json: { Suspended: true } }),
      ],
      ['deleted', (id: number) => gw.request(`/x-users/${id}`, { method: 'DELETE' })],
    ])('ends a session within a second of its account being %s', async (what, change) => {
      const user = await realtimeUser(`rtend${what}`);
      const opened = session(await openSession(gw, 'gpt-rt-end-1', user.key));
      const { frames } = opened;
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      expect((await change(user.id)).status).toBe(200);
      const ended = await endedWithin(opened, 1_000);
      expect(ended.code).toBe(1008);
      expect(ended.error).toMatchObject({ error: { code: 'forbidden' } });
    });

    it('ends a session within a second of its key being rotated', async () => {
      const user = await realtimeUser('rtendrotated');
      const opened = session(await openSession(gw, 'gpt-rt-end-1', user.key));
      const { frames } = opened;
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      const rotated = await gw.request('/x-self', {
        method: 'POST',
        key: user.key,
        json: { confirm: `${new Date().toISOString().slice(0, 10)}-ROTATE-SELF` },
      });
      expect(rotated.status).toBe(200);
      expect((await endedWithin(opened, 1_000)).code).toBe(1008);
    });

    it('ends a session within a second of its balance reaching the floor for AI calls', async () => {
      const user = await realtimeUser('rtendbalance');
      const opened = session(await openSession(gw, 'gpt-rt-end-1', user.key));
      await waitFor(
        async () => opened.frames.some((frame) => frame.type === 'session.created'),
        'session.created',
      );
      const accounts = createGrpcClient(
        accountsProto.AccountsServiceClient,
        gw.env.ACCOUNTS_ADDR ?? '',
        gw.env.GW_INTERNAL_TOKEN ?? '',
      );
      await accounts.debit({
        accountId: BigInt(user.id),
        amountNano: usd(5),
        idempotencyKey: 'evt_rt_balance_floor',
      });
      accounts.close();
      const ended = await endedWithin(opened, 1_000);
      expect(ended.code).toBe(1008);
      expect(ended.error).toMatchObject({ error: { message: expect.stringContaining('balance') } });
    });

    it('checks the model named in a binary frame like one in a text frame', async () => {
      const user = await realtimeUser('rtbinary');
      const { ws, frames } = session(await openSession(gw, 'gpt-rt-end-1', user.key));
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      const before = mock.realtimeFrames.length;
      ws.send(Buffer.from(JSON.stringify({ type: 'session.update', session: { model: 'other-model' } })), {
        binary: true,
      });
      await waitFor(async () => frames.some((frame) => frame.type === 'error'), 'error event', 3_000, 20);
      expect(frames.find((frame) => frame.type === 'error')).toMatchObject({
        error: { code: 'model_not_allowed' },
      });
      expect(mock.realtimeFrames.length).toBe(before);
      ws.close();
    });
  });

  it('relays 200 MB to a slow reader without the proxy holding it (RSS grows less than 50 MB)', async () => {
    const k = secret('rt-flood');
    mock.set(k, { floodBytes: 200 * 1024 * 1024 });
    const keyId = await addKey(3, k);
    expect(
      (await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt-flood=3' } })).status,
    ).toBe(200);
    await waitForRoute(gw, 'gpt-rt-flood', 3, [keyId]);
    const proxyPid = gw.processes.get('proxy')?.child.pid ?? 0;
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proxyPid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

    const url = `${gw.baseUrl.replace('http', 'ws')}/v1/realtime?model=gpt-rt-flood`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${gw.rootKey}` } });
    const reading = { received: 0, done: false };
    ws.on('message', (data: Buffer) => {
      reading.received += data.length;
      if (data.length < 1024 && data.toString().includes('response.done')) {
        reading.done = true;
      }
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const baseline = rss();
    let peak = baseline;
    ws.send(JSON.stringify({ type: 'response.create' }));
    // A slow reader: mostly paused, reading in short bursts.
    while (!reading.done) {
      ws.pause();
      await new Promise((resolve) => setTimeout(resolve, 40));
      peak = Math.max(peak, rss());
      ws.resume();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    ws.close();
    expect(reading.received).toBeGreaterThan(200 * 1024 * 1024);
    expect(peak - baseline).toBeLessThan(50 * 1024 * 1024);
  }, 300_000);
});
