import type { Redis } from 'ioredis';
import type { SleepingKey } from '../domain/model.js';
import type { SleepStore } from '../domain/ports.js';

const STEP_TTL_SECONDS = 86_400;

/**
 * Sleeping keys in Redis, in the layout the proxies write (services/proxy redis-key-health.ts),
 * so every replica and this service agree:
 *   <prefix>sleep:<ownerId>  hash  keyId → JSON { until (epoch ms), failure, step }
 *   <prefix>fail:<keyId>     int   consecutive failures
 *   <prefix>step:<keyId>     int   sleeps since the last success (5 → 15 → 30 min ladder)
 * An entry whose `until` has passed is awake.
 */
export class RedisSleepStore implements SleepStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  private hash(ownerId: bigint) {
    return `${this.prefix}sleep:${ownerId}`;
  }

  async list(ownerId: bigint): Promise<SleepingKey[]> {
    const entries = await this.redis.hgetall(this.hash(ownerId));
    const now = this.now();
    const sleeping: SleepingKey[] = [];
    for (const [keyId, value] of Object.entries(entries)) {
      let parsed: { until?: unknown; step?: unknown };
      try {
        parsed = JSON.parse(value) as { until?: unknown; step?: unknown };
      } catch {
        continue;
      }
      const until = Number(parsed.until);
      if (/^\d+$/.test(keyId) && until > now) {
        sleeping.push({
          keyId: BigInt(keyId),
          remainingMs: until - now,
          sleepTimes: Number(parsed.step) || 1,
        });
      }
    }
    return sleeping;
  }

  async times(_ownerId: bigint, keyId: bigint): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}step:${keyId}`)) ?? 0);
  }

  async put(ownerId: bigint, keyId: bigint, durationMs: number, times: number): Promise<void> {
    await this.redis
      .multi()
      .hset(
        this.hash(ownerId),
        String(keyId),
        JSON.stringify({ until: this.now() + durationMs, failure: 'manual', step: times }),
      )
      .set(`${this.prefix}step:${keyId}`, String(times), 'EX', STEP_TTL_SECONDS)
      .del(`${this.prefix}fail:${keyId}`)
      .exec();
  }

  async clear(ownerId: bigint, keyIds: readonly bigint[] | 'all'): Promise<number> {
    const asleep = await this.list(ownerId);
    const wanted = keyIds === 'all' ? asleep.map((key) => key.keyId) : keyIds;
    const fields =
      keyIds === 'all' ? Object.keys(await this.redis.hgetall(this.hash(ownerId))) : keyIds.map(String);
    if (fields.length > 0) {
      const counters = fields.flatMap((id) => [`${this.prefix}step:${id}`, `${this.prefix}fail:${id}`]);
      await this.redis
        .multi()
        .hdel(this.hash(ownerId), ...fields)
        .del(...counters)
        .exec();
    }
    return asleep.filter((key) => wanted.includes(key.keyId)).length;
  }
}
