import { keyStateKeys } from '@gw/kit';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useRelayGateway } from './relay-fixture.js';

/**
 * One request never puts a pool to sleep: what upstream refuses as the client's fault (a bad body,
 * an unknown model, a chat model sent to /v1/completions) is relayed once and blames no key; a
 * (key, model) pair sleeps only after the same failure repeats on that key, as a key does, and
 * the owner sees and wakes it like a sleeping key.
 */
describe('proxy relay through the gateway: client faults and (key, model) sleeps', () => {
  const relay = useRelayGateway();
  const { level, secret } = relay;

  interface Overview {
    SleepingKeys: Array<{ ID: number; Model?: string; SleepTimes: number; SleepRemaining: number }>;
  }
  const overview = async () => (await (await relay.gw.request('/x-conf')).json()) as Overview;

  /** The key-state counters and sleeps Redis holds for these keys and their Level. */
  async function keyState(keyIds: readonly number[], level: number): Promise<string[]> {
    const redis = new Redis(relay.gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const keys = keyStateKeys(relay.gw.env.GW_KEY_STATE_PREFIX ?? '');
      const counters = [
        keys.levelFailures(String(relay.rootId), level),
        ...keyIds.flatMap((id) => [keys.failures(String(id)), keys.sleeps(String(id))]),
      ];
      const pairCounters = await Promise.all(
        keyIds.map((id) => redis.keys(`${keys.pairFailures(String(id), '')}*`)),
      );
      const sleeps = [
        ...Object.keys(await redis.hgetall(keys.sleeping(String(relay.rootId)))),
        ...Object.keys(await redis.hgetall(keys.sleepingModels(String(relay.rootId)))),
      ].filter((field) => keyIds.some((id) => field === String(id) || field.startsWith(`${id}|`)));
      const present = await Promise.all(
        counters.map(async (name) => ((await redis.exists(name)) ? [name] : [])),
      );
      return [...present.flat(), ...pairCounters.flat(), ...sleeps];
    } finally {
      redis.disconnect();
    }
  }

  it("relays 100 calls upstream refuses as the client's fault once each: no failover, no key or pair asleep", async () => {
    const secrets = [secret('fault-a'), secret('fault-b'), secret('fault-c')];
    const ids = await level(
      2,
      'gpt-fault',
      secrets.map((key) => ({ secret: key })),
    );
    const faults = [
      {
        path: '/v1/chat/completions',
        body: { model: 'gpt-fault', messages: 'nope' },
        status: 400,
        error: {
          message: "Invalid type for 'messages'",
          type: 'invalid_request_error',
          code: 'invalid_type',
        },
      },
      {
        path: '/v1/chat/completions',
        body: { model: 'gpt-fault', messages: [] },
        status: 404,
        error: {
          message: 'The model `gpt-fault` does not exist or you do not have access to it.',
          type: 'invalid_request_error',
          code: 'model_not_found',
        },
      },
      {
        path: '/v1/completions',
        body: { model: 'gpt-fault', prompt: 'hi' },
        status: 404,
        error: {
          message:
            'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?',
          type: 'invalid_request_error',
          code: null,
        },
      },
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const fault = faults[i % faults.length] ?? faults[0];
      for (const key of secrets) {
        relay.mock.set(key, { status: fault?.status, errorBody: { error: fault?.error } });
      }
      const response = await relay.gw.request(fault?.path ?? '', { method: 'POST', json: fault?.body });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.filter((status) => status === 400)).toHaveLength(34);
    expect(statuses.filter((status) => status === 404)).toHaveLength(66);
    // Exactly one upstream request per call: nothing failed over.
    expect(secrets.flatMap((key) => relay.mock.for(key))).toHaveLength(100);
    expect((await overview()).SleepingKeys.filter((key) => ids.includes(key.ID))).toEqual([]);
    expect(await keyState(ids, 2)).toEqual([]);
  });

  it('sleeps a (key, model) pair after three 403s about the model on that key, lists it in /x-conf, and DelKeys wakes it', async () => {
    const denied = secret('pair-denied');
    const allowed = secret('pair-allowed');
    const [deniedId, allowedId] = await level(3, 'gpt-pair', [{ secret: denied }, { secret: allowed }]);
    relay.mock.set(denied, {
      status: 403,
      errorBody: {
        error: { message: 'You are not allowed to sample from this model', type: 'invalid_request_error' },
      },
    });
    const call = async () => {
      const response = await relay.gw.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'gpt-pair', messages: [] },
      });
      await response.arrayBuffer();
      return response.status;
    };
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      statuses.push(await call());
    }
    // Every call is served (the denied key fails over to the other); every other call starts on
    // the denied key, and after its third refusal the pair sleeps.
    expect(statuses).toEqual(Array.from({ length: 8 }, () => 200));
    expect(relay.mock.for(denied)).toHaveLength(3);
    expect(relay.mock.for(allowed)).toHaveLength(8);

    const asleep = (await overview()).SleepingKeys.filter((key) => [deniedId, allowedId].includes(key.ID));
    expect(asleep).toEqual([expect.objectContaining({ ID: deniedId, Model: 'gpt-pair', SleepTimes: 1 })]);
    expect(asleep[0]?.SleepRemaining).toBeGreaterThan(240);
    expect(asleep[0]?.SleepRemaining).toBeLessThanOrEqual(300);

    // DelKeys wakes the pair: the denied key is tried again.
    expect((await relay.gw.request('/x-conf', { method: 'POST', json: { DelKeys: true } })).status).toBe(200);
    expect((await overview()).SleepingKeys.filter((key) => key.ID === deniedId)).toEqual([]);
    for (let i = 0; i < 2; i += 1) {
      expect(await call()).toBe(200);
    }
    expect(relay.mock.for(denied)).toHaveLength(4);
  });
});
