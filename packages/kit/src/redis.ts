import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './log.js';

/**
 * How a connection behaves when Redis is slow or gone, by what its user can afford:
 * - `hotPath`: state an AI call consults (limits, key health, spend holds). A command fails after
 *   250 ms instead of queueing and the caller decides alone (docs/decisions.md §6).
 * - `failClosed`: state a refusal must come from (signup, console sessions). No offline queue,
 *   one try, a second at most, and a command that timed out is never sent again after a
 *   reconnect: what the caller was told failed leaves nothing behind.
 * - `durable`: background writes that may wait for a reconnect (key sleeps, the mail queue).
 * - `worker`: a BullMQ worker's blocking connection (BullMQ requires unlimited retries).
 */
export type RedisProfile = 'hotPath' | 'failClosed' | 'durable' | 'worker';

const PROFILES: Record<RedisProfile, RedisOptions> = {
  hotPath: {
    enableOfflineQueue: false,
    commandTimeout: 250,
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
  },
  failClosed: {
    enableOfflineQueue: false,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
  },
  durable: { enableOfflineQueue: true, maxRetriesPerRequest: 2 },
  worker: { maxRetriesPerRequest: null },
};

/**
 * A Redis connection with the options of its profile; its connection errors are logged (at
 * debug on the hot path, where every call would repeat them), never thrown at the process.
 */
export function connectRedis(url: string, profile: RedisProfile, log: Logger, purpose: string): Redis {
  const redis = new Redis(url, PROFILES[profile]);
  redis.on('error', (error: unknown) => {
    const line = { err: error, purpose };
    if (profile === 'hotPath') {
      log.debug(line, 'redis connection failed');
    } else {
      log.warn(line, 'redis connection failed');
    }
  });
  return redis;
}
