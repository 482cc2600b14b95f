import { connectRedis, type Logger } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import type { Redis } from 'ioredis';

export const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The proxy's connection, once ready (before that, it fails commands rather than queue them). */
export async function connected(url: string, log: Logger): Promise<Redis> {
  const redis = connectRedis(url, 'hotPath', log, 'shared key state');
  await waitFor(async () => redis.status === 'ready', `connected to ${url}`, 5_000, 20);
  return redis;
}
