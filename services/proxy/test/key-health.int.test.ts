import { randomBytes } from 'node:crypto';
import { connectRedis, createLogger, encodeSwitch, keyStateKeys } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisKeyHealth } from '../src/transport/redis/key-health.js';

const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOW = 1_800_000_000_000;

describe('pool state in Redis (one script per call)', () => {
  let redis: Redis;
  const silent = createLogger('proxy-test', 'silent');
  const fresh = () => {
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    return { keys: keyStateKeys(prefix), health: new RedisKeyHealth(redis, prefix, silent, () => NOW) };
  };

  beforeAll(async () => {
    redis = connectRedis(SHARED_REDIS, 'hotPath', silent, 'key state');
    await waitFor(async () => redis.status === 'ready', 'connected to Redis', 5_000, 20);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('reads a healthy pool as empty, and any one of its four hashes once it exists', async () => {
    const { keys, health } = fresh();
    expect(await health.state('1')).toMatchObject({
      failing: new Set(),
      switched: new Set(),
      cooledDown: [],
    });
    await redis.hset(keys.failing('1'), 'k1', '1');
    expect((await health.state('1')).failing).toEqual(new Set(['k1']));
    await redis.del(keys.failing('1'));
    await redis.hset(keys.switched('1'), '2', encodeSwitch({ until: NOW + 1_000, at: NOW }));
    expect(await health.state('1')).toMatchObject({ failing: new Set(), switched: new Set([2]) });
  });
});
