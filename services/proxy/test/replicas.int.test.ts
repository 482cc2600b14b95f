import {
  createUser,
  freePort,
  keyTestEnv,
  randomSecret,
  startGateway,
  waitFor,
  type Gateway,
  MockUpstream,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface RouteView {
  Level: number | null;
}

/**
 * Two front doors (proxies), each with its own edge behind it, on the same PostgreSQL, Redis and
 * NATS behave as one gateway, as a load balancer in front of the proxies would spread the traffic.
 */
describe('replicas behave as one', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let secondDoor: string;
  let slowSecret: string;

  const routeLevel = async (model: string, base: string) => {
    const response = await gw.request(`/x-route?model=${model}`, { base });
    return ((await response.json()) as RouteView).Level;
  };

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: keyTestEnv() });
    // The second proxy passes management calls to the second edge, whose /x-route asks it.
    const edgePort = await freePort();
    const proxy = await gw.startProxyReplica({ EDGE_ADDR: `127.0.0.1:${edgePort}` });
    await gw.startEdgeReplica({ PORT: String(edgePort), PROXY_ADDR: proxy });
    secondDoor = `http://${proxy}`;
    slowSecret = randomSecret();
    for (const level of [1, 2]) {
      const created = await gw.request('/x-keys', {
        method: 'POST',
        json: { SecretKey: level === 1 ? slowSecret : randomSecret(), Level: level, Provider: mock.url },
      });
      expect(created.status).toBe(200);
    }
    // Streams of ten chunks 100 ms apart: a call is in flight for about a second.
    mock.set(slowSecret, { chunks: 10, chunkDelayMs: 100 });
  });

  afterAll(async () => {
    await gw.stop();
    await mock.stop();
  });

  it('a config change made through one front door reaches the other proxy within a second', async () => {
    for (const level of [1, 2]) {
      const changed = await gw.request('/x-config', {
        method: 'PUT',
        json: { LEVEL_MAPPER: `rep-*=${level}` },
      });
      expect(changed.status).toBe(200);
      await waitFor(
        async () => (await routeLevel('rep-a', secondDoor)) === level,
        `Level ${level} on the second proxy`,
        1_000,
        20,
      );
      await waitFor(
        async () => (await routeLevel('rep-a', gw.baseUrl)) === level,
        `Level ${level} on the first proxy`,
        1_000,
        20,
      );
    }
  });

  it('a key rotated through one front door is refused by the other within a second', async () => {
    const user = await createUser(gw);
    expect((await gw.request('/dashboard/status', { key: user.key, base: secondDoor })).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const rotated = await gw.request('/x-self', {
      method: 'POST',
      key: user.key,
      json: { confirm: `${today}-ROTATE-SELF` },
    });
    expect(rotated.status).toBe(200);
    await waitFor(
      async () => (await gw.request('/dashboard/status', { key: user.key, base: secondDoor })).status === 401,
      'the old key refused through the second front door',
      1_000,
      20,
    );
  });

  it('calls through both proxies are each billed once', async () => {
    const configured = await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'rep-*=2' } });
    expect(configured.status).toBe(200);
    await waitFor(async () => (await routeLevel('rep-c', secondDoor)) === 2, 'Level 2 on the second proxy');
    await waitFor(async () => (await routeLevel('rep-c', gw.baseUrl)) === 2, 'Level 2 on the first proxy');
    const user = await createUser(gw, { credit: 5 });
    for (const base of [gw.baseUrl, secondDoor, gw.baseUrl, secondDoor]) {
      const answer = await gw.request('/v1/chat/completions', {
        method: 'POST',
        base,
        key: user.key,
        json: { model: 'rep-c', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(answer.status).toBe(200);
    }
    interface Bill {
      total_usage: { requests: number; cost: number };
    }
    const bill = async () => (await (await gw.request('/dashboard/bill', { key: user.key })).json()) as Bill;
    const balance = async () =>
      ((await (await gw.request('/dashboard/status', { key: user.key })).json()) as { balance: number })
        .balance;
    await waitFor(
      async () => (await bill()).total_usage.requests === 4 && (await balance()) < 5,
      'four calls billed and charged',
    );
    const charged = await bill();
    expect(charged.total_usage.requests).toBe(4);
    expect(charged.total_usage.cost).toBeGreaterThan(0);
    // What left the balance is exactly what the bill shows: no call charged twice or missed.
    await waitFor(
      async () => Math.abs(5 - (await balance()) - charged.total_usage.cost) < 1e-9,
      'the balance down by exactly the bill',
    );
  });

  it('a proxy stopped with SIGTERM finishes every call in flight while the other keeps serving', async () => {
    const configured = await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'rep-*=1' } });
    expect(configured.status).toBe(200);
    await waitFor(async () => (await routeLevel('rep-b', secondDoor)) === 1, 'Level 1 on the second proxy');
    const stream = (base: string) =>
      gw
        .request('/v1/chat/completions', {
          method: 'POST',
          base,
          json: { model: 'rep-b', stream: true, messages: [{ role: 'user', content: 'hi' }] },
        })
        .then(async (response) => ({ status: response.status, body: await response.text() }));

    const inFlight = Array.from({ length: 6 }, () => stream(secondDoor));
    await waitFor(
      async () => mock.for(slowSecret).filter((r) => r.finishedAt === undefined).length >= 6,
      'six calls upstream',
    );
    const proxy = [...gw.processes].find(([name]) => name.startsWith('proxy-'))?.[1];
    const stopped = proxy?.stop(30_000);
    // The load balancer now sends everything to the first proxy.
    const meanwhile = Array.from({ length: 6 }, () => stream(gw.baseUrl));

    expect(await stopped).toBe(0);
    for (const call of [...(await Promise.all(inFlight)), ...(await Promise.all(meanwhile))]) {
      expect(call.status).toBe(200);
      expect(call.body).toContain('data: [DONE]');
    }
  });
});
