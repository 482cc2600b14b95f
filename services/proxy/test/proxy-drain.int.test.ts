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
 * Retry-After on a kept-alive connection; a new connection finds the port closed, which sends a
 * load balancer's retry to another replica), the calls in flight finish and are billed, and it
 * exits 0.
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
    /**
     * One streamed call. A call the stopping proxy never read answers status 0 with the reason (a
     * new connection refused, or a kept-alive one it closed while idle: a load balancer retries
     * those on another replica); a call it answered must be whole, or the test fails here.
     */
    const stream = async () => {
      let response: Response;
      try {
        response = await gw.request('/v1/chat/completions', {
          method: 'POST',
          key: user.key,
          json: { model: 'drain-m', stream: true, messages: [{ role: 'user', content: 'hi' }] },
        });
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code;
        return { status: 0, retryAfter: null, body: String(code ?? error) };
      }
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.text(),
      };
    };

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
    // Traffic keeps coming, on kept-alive connections and new ones, while the proxy stops.
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
    // Nothing else: no stream cut, no other error.
    for (const answer of answers.filter((a) => a.status !== 200 && a.status !== 0)) {
      expect({ status: answer.status, retryAfter: Number(answer.retryAfter) > 0 }).toEqual({
        status: 503,
        retryAfter: true,
      });
    }
    for (const answer of answers.filter((a) => a.status === 0)) {
      // A kept-alive connection closed under a request reads as a socket error or, when the
      // request was written after the close, as a reset.
      expect(['ECONNREFUSED', 'UND_ERR_SOCKET', 'ECONNRESET']).toContain(answer.body);
    }
    // Every served call is charged: billing sees one request per 200.
    interface Bill {
      total_usage: { requests: number };
    }
    await waitFor(async () => {
      // From the edge itself: the public port was the stopped proxy's.
      const bill = (await (
        await gw.request('/dashboard/bill', { key: user.key, base: `http://${gw.env.EDGE_ADDR}` })
      ).json()) as Bill;
      return bill.total_usage.requests === served.length;
    }, 'every served call billed');
  });
});
