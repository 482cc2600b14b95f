import { encodeSleep, KEY_STATE_TTL_SECONDS, keyStateKeys, sleepLength } from '@gw/kit';
import { Redis } from 'ioredis';
import type { Gateway } from './gateway.js';

/**
 * Puts a key to sleep as a proxy does after its repeated failures: the `step`-th sleep in a row
 * (1 = 5 minutes, 2 = 15, then 30), written in the Redis layout of `@gw/kit` key-state.ts, for
 * tests of what reads and wakes sleeping keys without driving an upstream into failures.
 */
export async function putKeyToSleep(
  gw: Gateway,
  sleep: { ownerId: bigint | number; keyId: bigint | number; step: number },
): Promise<void> {
  const redis = new Redis(gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const keys = keyStateKeys(gw.env.GW_KEY_STATE_PREFIX ?? '');
    const until = Date.now() + sleepLength(sleep.step);
    await redis
      .multi()
      .hset(
        keys.sleeping(String(sleep.ownerId)),
        String(sleep.keyId),
        encodeSleep({ until, failure: 'auth', step: sleep.step }),
      )
      .set(keys.sleeps(String(sleep.keyId)), String(sleep.step), 'EX', KEY_STATE_TTL_SECONDS)
      .exec();
  } finally {
    redis.disconnect();
  }
}
