import type { Logger } from '@gw/kit';
import { Redis } from 'ioredis';

/**
 * The proxy's Redis connection for the shared key state and rate limits. A slow or absent Redis
 * must never hold a request: commands fail after 250 ms instead of queueing, and each store
 * falls back to what it can decide alone (docs/decisions.md §6).
 */
export function connectSharedState(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: 250,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  });
  redis.on('error', (error) => log.debug({ err: error }, 'redis error'));
  return redis;
}
