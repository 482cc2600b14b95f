import { SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import { freePort, waitFor, waitForRoute } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { useRelayGateway } from './relay-fixture.js';

/**
 * Failover: the next key on a 5xx, 429, hung or refused upstream, MODEL_FAILOVER and SWITCH_OVER,
 * a 503 when every key fails, a client error relayed once, and a Level switched to its backup.
 */
describe('proxy relay through the gateway: failover over keys, models and Levels', () => {
  const relay = useRelayGateway();
  const { addKey, configure, level, secret, usage, usageFor } = relay;

  it('fails over to the next key on a 500 and bills only the key that served', async () => {
    const bad = secret('fail500');
    const good = secret('good');
    const [badId, goodId] = await level(6, 'gpt-failover', [{ secret: bad }, { secret: good }]);
    relay.mock.set(bad, { status: 500 });

    // Two calls: round robin starts one of them on the failing key.
    for (let i = 0; i < 2; i += 1) {
      const completion = await relay.client.chat.completions.create({
        model: 'gpt-failover',
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(completion.choices[0]?.message.content).toBe(`hello from ${good}`);
    }
    expect(relay.mock.for(bad)).toHaveLength(1);
    expect(relay.mock.for(good)).toHaveLength(2);
    await waitFor(async () => usageFor(goodId ?? 0).length === 2, 'usage events', 5_000, 20);
    expect(usageFor(badId ?? 0)).toHaveLength(0);
  });

  it('walks 500, 429, a hung key and a refused connection, then MODEL_FAILOVER and SWITCH_OVER', async () => {
    const k500 = secret('k500');
    const k429 = secret('k429');
    const kHang = secret('khang');
    const backup = secret('backup');
    relay.mock.set(k500, { status: 500 });
    relay.mock.set(k429, { status: 429 });
    relay.mock.set(kHang, { hang: true });
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
    await waitForRoute(relay.gw, 'gpt-ladder', 7, ids);

    const completion = await relay.client.chat.completions.create({
      model: 'gpt-ladder',
      messages: [{ role: 'user', content: 'x' }],
    });

    expect(completion.choices[0]?.message.content).toBe(`hello from ${backup}`);
    // Each failing key was tried once (MODEL_FAILOVER stays on Level 7, whose keys already failed).
    expect(relay.mock.for(k500)).toHaveLength(1);
    expect(relay.mock.for(k429)).toHaveLength(1);
    expect(relay.mock.for(kHang)).toHaveLength(1);
    expect(relay.mock.for(backup)[0]?.body.model).toBe('gpt-ladder');
    await waitFor(async () => usageFor(ids[4] ?? 0).length === 1, 'usage event', 5_000, 20);
    expect(usageFor(ids[4] ?? 0)[0]?.level).toBe(8);
  });

  it('answers 503 in the error shape with no usage event when every key fails', async () => {
    const a = secret('down-a');
    const b = secret('down-b');
    const [aId, bId] = await level(9, 'gpt-down', [{ secret: a }, { secret: b }]);
    relay.mock.set(a, { status: 500 });
    relay.mock.set(b, { status: 502 });
    const before = usage.length;

    const response = await relay.gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-down', messages: [] },
    });

    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'unavailable' });
    expect(typeof body.error.message).toBe('string');
    // A later call that is billed is the barrier: the outbox publishes in order, so once its event
    // is here, an event of the failed call would be here too.
    relay.mock.set(a, {});
    const served = await relay.gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-down', messages: [] },
    });
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    await waitFor(async () => usageFor(aId ?? 0).length === 1, 'the served call billed');
    expect(usage.length).toBe(before + 1);
    expect(usageFor(bId ?? 0)).toHaveLength(0);
  });

  it('relays a client error once, without failover', async () => {
    const a = secret('c400');
    const b = secret('c400-next');
    await level(0, 'gpt-bad-body', [{ secret: a }, { secret: b }]);
    relay.mock.set(a, { status: 400 });
    // Two calls: the one that starts on the key answering 400 gets that 400, and nothing more.
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const response = await relay.gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-bad-body', messages: 'nope' },
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.sort()).toEqual([200, 400]);
    expect(relay.mock.for(a)).toHaveLength(1);
    expect(relay.mock.for(b)).toHaveLength(1);
  });

  it('switches a Level to its backup after more than 5 failures in a minute, and back after the cool-down', async () => {
    const f1 = secret('lvl-f1');
    const f2 = secret('lvl-f2');
    const backup = secret('lvl-backup');
    relay.mock.set(f1, { status: 500 });
    relay.mock.set(f2, { status: 502 });
    const ids = [await addKey(5, f1), await addKey(5, f2), await addKey(6, backup)];
    await configure({ LEVEL_MAPPER: 'gpt-switch=5', SWITCH_OVER: '5=6' });
    await waitForRoute(relay.gw, 'gpt-switch', 5, ids);
    const switches: events.LevelSwitched[] = [];
    const sub = relay.nc.subscribe(SUBJECTS.levelSwitched(relay.rootId));
    void (async () => {
      for await (const msg of sub) {
        switches.push(events.LevelSwitched.fromJSON(JSON.parse(new TextDecoder().decode(msg.data))));
      }
    })();
    const call = async () => {
      const response = await relay.gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-switch', messages: [] },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    };
    const primaryHits = () => relay.mock.for(f1).length + relay.mock.for(f2).length;

    for (let i = 0; i < 3; i += 1) {
      await call();
    }
    expect(primaryHits()).toBe(6);
    await waitFor(async () => switches.length === 1, 'level switched event', 3_000, 20);
    expect(switches[0]).toMatchObject({ ownerId: BigInt(relay.rootId), level: 5, switchedBack: false });

    // Wake the keys: the Level stays switched, so its keys are not tried first.
    expect((await relay.gw.request('/x-conf', { method: 'POST', json: { DelKeys: true } })).status).toBe(200);
    await call();
    expect(primaryHits()).toBe(6);

    // After the cool-down the primary is probed again, and the switch-back is announced.
    await waitFor(async () => {
      const route = (await (await relay.gw.request('/x-route?model=gpt-switch')).json()) as {
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
    const scraped = await (await fetch(`http://${relay.gw.metrics.get('proxy') ?? ''}/metrics`)).text();
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
});
