import { decodeSleep, encodeSleep, KEY_STATE_TTL_SECONDS, keyStateKeys } from '@gw/kit';
import type { Redis } from 'ioredis';
import type { SleepingKey } from '../domain/model.js';
import type { SleepStore } from '../domain/ports.js';

/**
 * Sleeping keys in Redis, in the layout the proxies write (`@gw/kit` key-state.ts), so every
 * replica and this service agree on what is asleep and for how long.
 */
export class RedisSleepStore implements SleepStore {
  private readonly keys: ReturnType<typeof keyStateKeys>;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keyStateKeys(prefix);
  }

  async list(ownerId: bigint): Promise<SleepingKey[]> {
    const entries = await this.redis.hgetall(this.keys.sleeping(ownerId));
    const now = this.now();
    const sleeping: SleepingKey[] = [];
    for (const [keyId, value] of Object.entries(entries)) {
      const entry = decodeSleep(value);
      if (entry && /^\d+$/.test(keyId) && entry.until > now) {
        sleeping.push({ keyId: BigInt(keyId), remainingMs: entry.until - now, sleepTimes: entry.step });
      }
    }
    return sleeping;
  }

  async times(_ownerId: bigint, keyId: bigint): Promise<number> {
    return Number((await this.redis.get(this.keys.sleeps(keyId))) ?? 0);
  }

  async put(ownerId: bigint, keyId: bigint, durationMs: number, times: number): Promise<void> {
    await this.redis
      .multi()
      .hset(
        this.keys.sleeping(ownerId),
        String(keyId),
        encodeSleep({ until: this.now() + durationMs, failure: 'manual', step: times }),
      )
      .set(this.keys.sleeps(keyId), String(times), 'EX', KEY_STATE_TTL_SECONDS)
      .del(this.keys.failures(keyId))
      .exec();
  }

  async clear(ownerId: bigint, keyIds: readonly bigint[] | 'all'): Promise<number> {
    const asleep = await this.list(ownerId);
    const wanted = keyIds === 'all' ? asleep.map((key) => key.keyId) : keyIds;
    const fields =
      keyIds === 'all'
        ? Object.keys(await this.redis.hgetall(this.keys.sleeping(ownerId)))
        : keyIds.map(String);
    if (fields.length > 0) {
      const counters = fields.flatMap((id) => [this.keys.sleeps(id), this.keys.failures(id)]);
      await this.redis
        .multi()
        .hdel(this.keys.sleeping(ownerId), ...fields)
        .del(...counters)
        .exec();
    }
    return asleep.filter((key) => wanted.includes(key.keyId)).length;
  }
}
