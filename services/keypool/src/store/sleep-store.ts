import { decodeSleep, keyStateKeys, parseKeyModelField } from '@gw/kit';
import type { Redis } from 'ioredis';
import type { SleepingKey } from '../domain/model.js';
import type { SleepStore } from '../domain/ports/sleeps.js';

/**
 * Sleeping keys and (key, model) pairs in Redis, in the layout the proxies write (`@gw/kit`
 * key-state.ts), so every replica and this service agree on what is asleep and for how long.
 */
export class RedisSleepStore implements SleepStore {
  private readonly keys: ReturnType<typeof keyStateKeys>;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = keyStateKeys(prefix);
  }

  async list(ownerId: bigint, at: Date): Promise<SleepingKey[]> {
    const [keys, pairs] = await Promise.all([
      this.redis.hgetall(this.keys.sleeping(ownerId)),
      this.redis.hgetall(this.keys.sleepingModels(ownerId)),
    ]);
    const now = at.getTime();
    const sleeping: SleepingKey[] = [];
    const add = (keyId: string, model: string, value: string) => {
      const entry = decodeSleep(value);
      if (entry && entry.until > now) {
        sleeping.push({
          keyId: BigInt(keyId),
          model,
          remainingMs: entry.until - now,
          sleepTimes: entry.step,
        });
      }
    };
    for (const [keyId, value] of Object.entries(keys)) {
      if (/^\d+$/.test(keyId)) {
        add(keyId, '', value);
      }
    }
    for (const [field, value] of Object.entries(pairs)) {
      const pair = parseKeyModelField(field);
      if (pair) {
        add(pair.keyId, pair.model, value);
      }
    }
    return sleeping;
  }

  async clear(ownerId: bigint, keyIds: readonly bigint[] | 'all', now: Date): Promise<number> {
    const asleep = await this.list(ownerId, now);
    const wanted = (keyId: string) => keyIds === 'all' || keyIds.includes(BigInt(keyId));
    const keyFields = Object.keys(await this.redis.hgetall(this.keys.sleeping(ownerId))).filter(wanted);
    const pairs = Object.keys(await this.redis.hgetall(this.keys.sleepingModels(ownerId))).flatMap(
      (field) => {
        const pair = parseKeyModelField(field);
        return pair && wanted(pair.keyId) ? [{ field, ...pair }] : [];
      },
    );
    const counters = [
      ...keyFields.flatMap((id) => [this.keys.sleeps(id), this.keys.failures(id)]),
      ...pairs.flatMap(({ keyId, model }) => [
        this.keys.pairSleeps(keyId, model),
        this.keys.pairFailures(keyId, model),
      ]),
    ];
    const wake = this.redis.multi();
    if (keyFields.length > 0) {
      wake.hdel(this.keys.sleeping(ownerId), ...keyFields);
    }
    if (pairs.length > 0) {
      wake.hdel(this.keys.sleepingModels(ownerId), ...pairs.map(({ field }) => field));
    }
    if (counters.length > 0) {
      await wake.del(...counters).exec();
    }
    return asleep.filter((sleep) => wanted(String(sleep.keyId))).length;
  }
}
