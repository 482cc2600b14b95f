import {
  createUser,
  keyTestEnv,
  randomSecret,
  startGateway,
  waitFor,
  type Gateway,
  MockUpstream,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Usage is billed after the call, so admission holds each call's estimated cost against the
 * balance while it runs and until billing has charged it: however many calls an account sends at
 * once, it ends at most one call's estimate below the floor (docs/decisions.md §1).
 */
describe('spend admission: the overdraft of an account is bounded', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let slow: string;
  let long: string;
  let hanging: string;

  beforeAll(async () => {
    mock = await MockUpstream.start();
    // A small cap on calls in flight per account (more than the four calls served at once below),
    // and a short wait for the usage of a call whose client left.
    gw = await startGateway({
      env: { ...keyTestEnv(), PROXY_MAX_IN_FLIGHT_PER_ACCOUNT: '5', PROXY_USAGE_GRACE_MS: '200' },
    });
    slow = randomSecret();
    long = randomSecret();
    hanging = randomSecret();
    for (const [secret, level] of [
      [slow, 1],
      [long, 2],
      [hanging, 3],
    ] as const) {
      const key = await gw.request('/x-keys', {
        method: 'POST',
        json: { SecretKey: secret, Level: level, Provider: mock.url },
      });
      expect(key.status).toBe(200);
    }
    // Each call stays in flight about half a second; on Level 2 about ten seconds.
    mock.set(slow, { chunks: 5, chunkDelayMs: 100 });
    mock.set(long, { chunks: 10, chunkDelayMs: 1_000 });
    mock.set(hanging, { hang: true });
    const configured = await gw.request('/x-config', {
      method: 'PUT',
      json: {
        LEVEL_MAPPER: 'od-*=1,long-*=2,hang-*=3',
        PRICING: JSON.stringify({
          ChatPricing: {
            'od-ten': { Call: 10, InputText: 0, OutputText: 0 },
            'od-half': { Call: 0.5, InputText: 0, OutputText: 0 },
            'long-free': { Call: 0, InputText: 0, OutputText: 0 },
            'hang-free': { Call: 0, InputText: 0, OutputText: 0 },
          },
        }),
      },
    });
    expect(configured.status).toBe(200);
  });

  afterAll(async () => {
    await gw.stop();
    await mock.stop();
  });

  const call = (key: string, model: string) =>
    gw
      .request('/v1/chat/completions', {
        method: 'POST',
        key,
        json: { model, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      })
      .then(async (response) => ({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.text(),
      }));

  const balanceOf = async (key: string) =>
    ((await (await gw.request('/dashboard/status', { key })).json()) as { balance: number }).balance;

  const charged = async (key: string, requests: number) =>
    waitFor(async () => {
      const bill = (await (await gw.request('/dashboard/bill', { key })).json()) as {
        total_usage: { requests: number };
      };
      return bill.total_usage.requests === requests;
    }, `${requests} calls charged`);

  it('admits one of eight parallel 10 USD calls on 2 USD: the overdraft is at most one estimate', async () => {
    const user = await createUser(gw, { credit: 2 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => call(user.key, 'od-ten')));
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBe(1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(429);
    }
    await charged(user.key, 1);
    await waitFor(async () => (await balanceOf(user.key)) === -8, 'the one call charged');
    // Below the floor now: refused at the edge.
    expect((await call(user.key, 'od-ten')).status).toBe(429);
  });

  it('holds calls in flight and not yet charged: 20 calls of 0.50 USD on 2 USD admit exactly 4', async () => {
    const user = await createUser(gw, { credit: 2 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(user.key, 'od-half')));
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBe(4);
    await charged(user.key, 4);
    await waitFor(async () => (await balanceOf(user.key)) === 0, 'four calls charged');
  });

  it('refuses an account its next call while PROXY_MAX_IN_FLIGHT_PER_ACCOUNT of its calls run, and no one else', async () => {
    const busy = await createUser(gw, { credit: 100 });
    const other = await createUser(gw, { credit: 100 });
    const open = Array.from({ length: 5 }, () => call(busy.key, 'long-free'));
    await waitFor(
      async () => mock.for(long).filter((r) => r.finishedAt === undefined).length >= 5,
      'five calls upstream',
    );
    const refused = await call(busy.key, 'od-half');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect((await call(other.key, 'od-half')).status).toBe(200);
    for (const answer of await Promise.all(open)) {
      expect(answer.status).toBe(200);
    }
    // The calls ended: the account's slots are free again.
    expect((await call(busy.key, 'od-half')).status).toBe(200);
  });

  it('frees the slots of calls whose client left before upstream answered: upstream is cut, the account calls again', async () => {
    const leaver = await createUser(gw, { credit: 100 });
    const leave = new AbortController();
    const open = Array.from({ length: 5 }, () =>
      fetch(`${gw.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${leaver.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'hang-free', messages: [{ role: 'user', content: 'hi' }] }),
        signal: leave.signal,
      }).catch((error: unknown) => error),
    );
    await waitFor(async () => mock.for(hanging).length === 5, 'five calls upstream');
    leave.abort();
    await Promise.all(open);
    // Upstream never answers (its own timeout is a minute): the calls end because their client did.
    await waitFor(
      async () => mock.for(hanging).every((request) => request.abortedAt !== undefined),
      'the upstream calls cut',
    );
    await waitFor(async () => (await call(leaver.key, 'od-half')).status === 200, 'a slot free again');
  });
});
