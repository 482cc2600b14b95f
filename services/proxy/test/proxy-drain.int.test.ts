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
 * A proxy stopped with SIGTERM under traffic drains: new calls are refused at once (503 with
 * Retry-After, relayed by the edge), the calls in flight finish and are billed, and it exits 0.
 */
describe('proxy SIGTERM under traffic', () => {
  let gw: Gateway;
  let mock: MockUpstream;

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: keyTestEnv() });
  });

  afterAll(async () => {
    await gw.stop();
    await mock.stop();
  });

  it('refuses new calls with 503 and Retry-After, finishes and bills those in flight, and exits 0', async () => {
    const secret = randomSecret();
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secret, Level: 1, Provider: mock.url },
    });
    expect(key.status).toBe(200);
    // Each stream is in flight for about 1.5 s.
    mock.set(secret, { chunks: 15, chunkDelayMs: 100 });
    const user = await createUser(gw, { credit: 20 });
    const stream = () =>
      gw
        .request('/v1/chat/completions', {
          method: 'POST',
          key: user.key,
          json: { model: 'drain-m', stream: true, messages: [{ role: 'user', content: 'hi' }] },
        })
        .then(async (response) => ({
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: await response.text(),
        }))
        .catch((error: unknown) => ({ status: 0, retryAfter: null, body: String(error) }));

    const calls = Array.from({ length: 4 }, stream);
    await waitFor(
      async () => mock.for(secret).filter((r) => r.finishedAt === undefined).length >= 4,
      'four streams upstream',
    );
    const proxy = gw.processes.get('proxy');
    const exited = proxy?.stop(40_000);
    const proxyState = { exited: false };
    void exited?.then(() => {
      proxyState.exited = true;
    });
    // Traffic keeps coming on the edge's kept-alive connections while the proxy stops.
    while (!proxyState.exited && calls.length < 200) {
      calls.push(stream());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await exited).toBe(0);

    const answers = await Promise.all(calls);
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBeGreaterThanOrEqual(4);
    for (const answer of served) {
      expect(answer.body).toContain('data: [DONE]');
    }
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect({ status: answer.status, retryAfter: Number(answer.retryAfter) > 0 }).toEqual({
        status: 503,
        retryAfter: true,
      });
    }
    // Every served call is charged: billing sees one request per 200.
    interface Bill {
      total_usage: { requests: number };
    }
    await waitFor(async () => {
      const bill = (await (await gw.request('/dashboard/bill', { key: user.key })).json()) as Bill;
      return bill.total_usage.requests === served.length;
    }, 'every served call billed');
  });
});
