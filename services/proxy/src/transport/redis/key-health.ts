import type { Logger } from '@gw/kit';
import type { Redis } from 'ioredis';
import { LEVEL_FAILURE_WINDOW_MS, sleepAfterFailure, type FailureClass } from '../domain/key-health.js';
import type { KeyHealthStore, PoolState } from '../domain/ports.js';

/**
 * Shared key state in Redis (one layout, read by keypool for /x-conf and cleared by DelKeys):
 *   <prefix>sleep:<ownerId>            hash  keyId → JSON { until (epoch ms), failure, step }
 *   <prefix>fail:<keyId>               int   consecutive failures since the last success or sleep
 *   <prefix>step:<keyId>               int   sleeps since the last success (5 → 15 → 30 min ladder)
 *   <prefix>switch:<ownerId>           hash  level → JSON { until (epoch ms), at }
 *   <prefix>lvlfail:<ownerId>:<level>  int   failures of the Level in the current one-minute window
 * Redis down: every key counts as awake, no Level as switched, failures go uncounted (fail open).
 */
export class RedisKeyHealth implements KeyHealthStore {
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async state(ownerId: string): Promise<PoolState> {
    const state: PoolState = {
      sleeping: new Set(),
      sleepDetails: new Map(),
      switched: new Set(),
      cooledDown: [],
    };
    try {
      const result = await this.redis
        .multi()
        .hgetall(`${this.prefix}sleep:${ownerId}`)
        .hgetall(`${this.prefix}switch:${ownerId}`)
        .exec();
      const now = this.now();
      const sleeping = (result?.[0]?.[1] ?? {}) as Record<string, string>;
      const switched = (result?.[1]?.[1] ?? {}) as Record<string, string>;
      for (const [keyId, value] of Object.entries(sleeping)) {
        const until = untilOf(value);
        if (until > now) {
          state.sleeping.add(keyId);
          state.sleepDetails.set(keyId, { until, failure: failureOf(value) });
        }
      }
      for (const [level, value] of Object.entries(switched)) {
        if (untilOf(value) > now) {
          state.switched.add(Number(level));
        } else {
          state.cooledDown.push(Number(level));
        }
      }
    } catch (error) {
      this.warn(error);
    }
    return state;
  }

  async recordFailure(
    ownerId: string,
    keyId: string,
    level: number,
    failure: FailureClass,
    retryAfterMs?: number,
  ): Promise<number> {
    try {
      const levelKey = `${this.prefix}lvlfail:${ownerId}:${level}`;
      const result = await this.redis
        .multi()
        .incr(`${this.prefix}fail:${keyId}`)
        .expire(`${this.prefix}fail:${keyId}`, 86_400)
        .get(`${this.prefix}step:${keyId}`)
        .incr(levelKey)
        .pexpire(levelKey, LEVEL_FAILURE_WINDOW_MS, 'NX')
        .exec();
      const consecutive = Number(result?.[0]?.[1] ?? 0);
      const step = Number(result?.[2]?.[1] ?? 0);
      const levelFailures = Number(result?.[3]?.[1] ?? 0);
      const sleepMs = sleepAfterFailure(failure, consecutive, step, retryAfterMs);
      if (sleepMs > 0) {
        const until = this.now() + sleepMs;
        await this.redis
          .multi()
          .hset(`${this.prefix}sleep:${ownerId}`, keyId, JSON.stringify({ until, failure, step: step + 1 }))
          .set(`${this.prefix}step:${keyId}`, String(step + 1), 'EX', 86_400)
          .del(`${this.prefix}fail:${keyId}`)
          .exec();
        this.log.warn({ ownerId, keyId, failure, sleepMs }, 'upstream key put to sleep');
      }
      return levelFailures;
    } catch (error) {
      this.warn(error);
      return 0;
    }
  }

  async recordSuccess(_ownerId: string, keyId: string): Promise<void> {
    try {
      await this.redis.del(`${this.prefix}fail:${keyId}`, `${this.prefix}step:${keyId}`);
    } catch (error) {
      this.warn(error);
    }
  }

  async switchLevel(ownerId: string, level: number, until: number): Promise<boolean> {
    try {
      const set = await this.redis.hsetnx(
        `${this.prefix}switch:${ownerId}`,
        String(level),
        JSON.stringify({ until, at: this.now() }),
      );
      return set === 1;
    } catch (error) {
      this.warn(error);
      return false;
    }
  }

  async switchBack(ownerId: string, level: number): Promise<boolean> {
    try {
      const [removed] = ((await this.redis
        .multi()
        .hdel(`${this.prefix}switch:${ownerId}`, String(level))
        .del(`${this.prefix}lvlfail:${ownerId}:${level}`)
        .exec()) ?? []) as Array<[Error | null, unknown]>;
      return removed?.[1] === 1;
    } catch (error) {
      this.warn(error);
      return false;
    }
  }

  private warn(error: unknown): void {
    if (this.now() - this.lastWarning > 10_000) {
      this.lastWarning = this.now();
      this.log.warn({ err: error }, 'key state store unavailable: failing open');
    }
  }
}

function failureOf(value: string): string {
  try {
    const failure = (JSON.parse(value) as { failure?: unknown }).failure;
    return typeof failure === 'string' ? failure : '';
  } catch {
    return '';
  }
}

function untilOf(value: string): number {
  try {
    return Number((JSON.parse(value) as { until?: unknown }).until);
  } catch {
    return 0;
  }
}
