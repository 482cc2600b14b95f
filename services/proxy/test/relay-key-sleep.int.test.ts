import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitFor } from '@gw/testkit';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useRelayGateway } from './relay-fixture.js';

/**
 * Keys put to sleep: for refused credentials (with an alert mail) or repeated failures, shared by
 * every proxy replica and shown in /x-route and /x-conf, answered with Retry-After and probed back.
 */
describe('proxy relay through the gateway: sleeping keys, alerts and probes', () => {
  const relay = useRelayGateway();
  const { level, secret } = relay;

  it('puts a key whose credentials are refused to sleep and enqueues one alert mail for the owner', async () => {
    const bad = secret('c403');
    const [badId] = await level(5, 'gpt-auth', [{ secret: bad }]);
    relay.mock.set(bad, { status: 403 });
    const response = await relay.gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-auth', messages: [] },
    });
    expect(response.status).toBe(503);
    await response.arrayBuffer();
    const redis = new Redis(relay.gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      // The mailer may be sending it right now: its lock key is not a second job.
      const jobs = (
        await redis.keys(`${relay.gw.env.GW_QUEUE_PREFIX}:mail:key-auth-${relay.rootId}-${badId}-*`)
      ).filter((key) => !key.endsWith(':lock'));
      expect(jobs).toHaveLength(1);
      const data = JSON.parse((await redis.hget(jobs[0] ?? '', 'data')) ?? '{}') as Record<string, string>;
      expect(data).toMatchObject({
        kind: 'key_auth_failed',
        keyId: String(badId),
        ownerId: String(relay.rootId),
      });
      expect(JSON.stringify(data)).not.toContain(bad);
    } finally {
      redis.disconnect();
    }
    // Asleep now: the next call does not try it again.
    await (
      await relay.gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-auth', messages: [] },
      })
    ).arrayBuffer();
    expect(relay.mock.for(bad)).toHaveLength(1);
  });

  it('puts a key to sleep after three consecutive failures, for every replica, shown in /x-route and /x-conf', async () => {
    const bad = secret('sleepy');
    const good = secret('awake');
    const [badId, goodId] = await level(1, 'gpt-sleep', [{ secret: bad }, { secret: good }]);
    relay.mock.set(bad, { status: 503 });
    for (let i = 0; i < 8; i += 1) {
      const response = await relay.gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-sleep', messages: [] },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    // Every other call starts on the bad key; after its third failure it sleeps.
    expect(relay.mock.for(bad)).toHaveLength(3);
    expect(relay.mock.for(good)).toHaveLength(8);

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
          ...relay.gw.env,
          PROXY_ADDR: replicaAddr,
          GW_DATA_DIR: join(relay.gw.env.GW_DATA_DIR ?? '', 'replica'),
        },
      },
    );
    try {
      await waitFor(
        async () => (await fetch(`http://${replicaAddr}/internal/healthz`)).ok,
        'proxy replica',
        20_000,
        100,
      );
      for (let i = 0; i < 4; i += 1) {
        const response = await fetch(`http://${replicaAddr}/v1/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${relay.gw.rootKey}`,
          },
          body: JSON.stringify({ model: 'gpt-sleep', messages: [] }),
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect(relay.mock.for(bad)).toHaveLength(3);
      expect(relay.mock.for(good)).toHaveLength(12);
    } finally {
      await replica.stop();
    }

    // The owner can see the decision and the key states without calling upstream.
    const route = (await (
      await relay.gw.request(`/x-route?model=gpt-sleep&user=${relay.rootId}`)
    ).json()) as {
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
    const overview = (await (await relay.gw.request('/x-conf')).json()) as {
      SleepingKeys: Array<{ ID: number; SleepTimes: number }>;
    };
    expect(overview.SleepingKeys.map((key) => key.ID)).toContain(badId);
    expect((await relay.gw.request('/x-conf', { method: 'POST', json: { DelKeys: true } })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      await (
        await relay.gw.request('/v1/chat/completions', {
          method: 'POST',
          json: { model: 'gpt-sleep', messages: [] },
        })
      ).arrayBuffer();
    }
    expect(relay.mock.for(bad)).toHaveLength(4);
  });

  it('answers 503 with Retry-After at the earliest wake, and probes a key asleep for its upstream back to life', async () => {
    const flaky = secret('probe-flaky');
    const revoked = secret('probe-revoked');
    const [flakyId] = await level(6, 'gpt-probe', [{ secret: flaky }]);
    await level(7, 'gpt-probe-auth', [{ secret: revoked }]);
    relay.mock.set(flaky, { status: 500 });
    relay.mock.set(revoked, { status: 401 });
    const call = (model: string) =>
      relay.gw.request('/v1/chat/completions', { method: 'POST', json: { model, messages: [] } });

    // Three failures put the flaky key to sleep (5 min); the revoked one sleeps at once (30 min).
    for (let i = 0; i < 3; i += 1) {
      expect((await call('gpt-probe')).status).toBe(503);
    }
    expect((await call('gpt-probe-auth')).status).toBe(503);
    const route = (await (await relay.gw.request('/x-route?model=gpt-probe')).json()) as {
      Keys: Array<{ ID: number; Name: string; State: string; WakeAt?: string; LastFailure?: string }>;
    };
    expect(route.Keys).toEqual([
      expect.objectContaining({ ID: flakyId, Name: '', State: 'sleeping', LastFailure: 'server_error' }),
    ]);

    // Asleep: the probe of this second goes to the flaky key (still failing), then a plain 503 with
    // Retry-After at its wake time; no call reaches a key that is not probed.
    const probed = await call('gpt-probe');
    expect(probed.status).toBe(503);
    expect(relay.mock.for(flaky)).toHaveLength(4);
    const asleep = await call('gpt-probe');
    expect(asleep.status).toBe(503);
    expect(Number(asleep.headers.get('retry-after'))).toBeGreaterThan(250);
    expect(relay.mock.for(flaky)).toHaveLength(4);

    // The upstream recovers: the next probe (two seconds later) finds it, and the key is awake again.
    relay.mock.set(flaky, {});
    await waitFor(async () => (await call('gpt-probe')).status === 200, 'a probe that succeeds', 8_000, 250);
    expect((await call('gpt-probe')).status).toBe(200);
    const awake = (await (await relay.gw.request('/x-route?model=gpt-probe')).json()) as {
      Keys: Array<{ State: string }>;
    };
    expect(awake.Keys[0]?.State).toBe('active');

    // A key asleep for its credentials is never probed: it stays asleep, with its Retry-After.
    // Its Level 7 has never had a probe claimed (its only key is not probeable), so a probeable
    // key there would be probed by the first of these calls; no pause is needed to prove it.
    relay.mock.set(revoked, {});
    const seen = relay.mock.for(revoked).length;
    for (let i = 0; i < 3; i += 1) {
      const refused = await call('gpt-probe-auth');
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1700);
    }
    expect(relay.mock.for(revoked)).toHaveLength(seen);
  });
});
