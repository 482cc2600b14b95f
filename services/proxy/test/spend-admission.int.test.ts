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

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: keyTestEnv() });
    slow = randomSecret();
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: slow, Level: 1, Provider: mock.url },
    });
    expect(key.status).toBe(200);
    // Each call stays in flight about half a second.
    mock.set(slow, { chunks: 5, chunkDelayMs: 100 });
    const configured = await gw.request('/x-config', {
      method: 'PUT',
      json: {
        LEVEL_MAPPER: 'od-*=1',
        PRICING: JSON.stringify({
          ChatPricing: {
            'od-ten': { Call: 10, InputText: 0, OutputText: 0 },
            'od-half': { Call: 0.5, InputText: 0, OutputText: 0 },
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
      .then(async (response) => ({ status: response.status, body: await response.text() }));

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
});
