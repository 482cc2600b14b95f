import {
  decodeSleep,
  decodeSwitch,
  encodeSleep,
  encodeSwitch,
  KEY_STATE_TTL_SECONDS,
  keyModelField,
  keyStateKeys,
  METRIC,
  serviceMetrics,
  type Logger,
} from '@gw/kit';
import type { Redis } from 'ioredis';
import { FailureClass, LEVEL_FAILURE_WINDOW_MS, sleepAfterFailure } from '../../domain/key-health.js';
import { emptyPoolState, type KeyHealthStore, type PoolState } from '../../domain/ports/key-health-store.js';
import { answerOf, type ScriptPart } from './script-part.js';

/** Counted by the replica that put the key to sleep; key ids are the pool's, a bounded set. */
const keySleeps = serviceMetrics().counter(
  METRIC.keySleeps,
  'Upstream keys put to sleep, by key id and the failure that did it (model: one model only)',
  ['key_id', 'reason'],
);

/**
 * Lua, `poolState(first)`: the owner's sleeping keys, switched Levels, sleeping (key, model) pairs
 * and failing keys, the hashes KEYS[first..first + 3]. A healthy pool has none of the four (a key
 * or Level that is well again leaves them, and an emptied hash is gone), so one EXISTS answers most
 * calls instead of four HGETALLs. Admission runs it in its one script (`admission.ts`).
 */
export const POOL_STATE_LUA = `
local function poolState(first)
  if redis.call('EXISTS', KEYS[first], KEYS[first + 1], KEYS[first + 2], KEYS[first + 3]) == 0 then
    return { {}, {}, {}, {} }
  end
  return { redis.call('HGETALL', KEYS[first]), redis.call('HGETALL', KEYS[first + 1]),
    redis.call('HGETALL', KEYS[first + 2]), redis.call('HGETALL', KEYS[first + 3]) }
end
`;

const POOL_STATE = `${POOL_STATE_LUA}
return poolState(1)
`;

/** A hash as HGETALL answers it inside a script: field, value, field, value… */
function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) {
    fields[flat[index] as string] = flat[index + 1] as string;
  }
  return fields;
}

/**
 * Shared key state in Redis, in the layout of `@gw/kit` key-state.ts (keypool reads it for
 * /x-conf and clears it for DelKeys). Redis down: every key counts as awake, no Level as
 * switched, failures go uncounted (fail open, docs/decisions.md §6).
 */
export class RedisKeyHealth implements KeyHealthStore {
  private lastWarning = 0;
  private readonly keys: ReturnType<typeof keyStateKeys>;
  private readonly redis: Redis & { gwPoolState(...keys: string[]): Promise<string[][]> };

  constructor(
    redis: Redis,
    prefix: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keyStateKeys(prefix);
    // One command for the four hashes a call reads: cheaper for both sides than MULTI and EXEC.
    redis.defineCommand('gwPoolState', { numberOfKeys: 4, lua: POOL_STATE });
    this.redis = redis as typeof this.redis;
  }

  async state(ownerId: string): Promise<PoolState> {
    const keys: string[] = [];
    const part = this.statePart(ownerId, keys);
    return answerOf(part, this.redis.gwPoolState(...keys));
  }

  /**
   * The pool state's part of a script (`poolState`): adds the owner's four hashes to `keys`.
   * Redis out: every key awake, no Level switched.
   */
  statePart(ownerId: string, keys: string[]): ScriptPart<string[][], PoolState> {
    keys.push(
      this.keys.sleeping(ownerId),
      this.keys.switched(ownerId),
      this.keys.sleepingModels(ownerId),
      this.keys.failing(ownerId),
    );
    return {
      read: (hashes) => this.stateOf(hashes),
      failed: (error) => {
        this.warn(error);
        return emptyPoolState();
      },
    };
  }

  private stateOf(hashes: string[][]): PoolState {
    const state = emptyPoolState();
    // A healthy pool, most calls: nothing to decode.
    if (hashes.every((hash) => hash.length === 0)) {
      return state;
    }
    const [sleeping = {}, switched = {}, sleepingModels = {}, failing = {}] = hashes.map(fieldsOf);
    const now = this.now();
    for (const field of Object.keys(failing)) {
      state.failing.add(field);
    }
    // Key sleeps and (key, model) sleeps share one set: their fields never collide.
    for (const [field, value] of [...Object.entries(sleeping), ...Object.entries(sleepingModels)]) {
      const entry = decodeSleep(value);
      if (entry && entry.until > now) {
        state.sleeping.add(field);
        state.sleepDetails.set(field, { until: entry.until, failure: entry.failure });
      }
    }
    for (const [level, value] of Object.entries(switched)) {
      if ((decodeSwitch(value)?.until ?? 0) > now) {
        state.switched.add(Number(level));
      } else {
        state.cooledDown.push(Number(level));
      }
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
      const levelKey = this.keys.levelFailures(ownerId, level);
      const result = await this.redis
        .multi()
        .incr(this.keys.failures(keyId))
        .expire(this.keys.failures(keyId), KEY_STATE_TTL_SECONDS)
        .get(this.keys.sleeps(keyId))
        .incr(levelKey)
        .pexpire(levelKey, LEVEL_FAILURE_WINDOW_MS, 'NX')
        .hset(this.keys.failing(ownerId), keyId, '1')
        .expire(this.keys.failing(ownerId), KEY_STATE_TTL_SECONDS)
        .exec();
      const consecutive = Number(result?.[0]?.[1] ?? 0);
      const step = Number(result?.[2]?.[1] ?? 0);
      const levelFailures = Number(result?.[3]?.[1] ?? 0);
      const sleepMs = sleepAfterFailure(failure, consecutive, step, retryAfterMs);
      if (sleepMs > 0) {
        const until = this.now() + sleepMs;
        await this.redis
          .multi()
          .hset(this.keys.sleeping(ownerId), keyId, encodeSleep({ until, failure, step: step + 1 }))
          .set(this.keys.sleeps(keyId), String(step + 1), 'EX', KEY_STATE_TTL_SECONDS)
          .del(this.keys.failures(keyId))
          .exec();
        keySleeps.labels(keyId, failure).inc();
        this.log.warn({ ownerId, keyId, failure, sleepMs }, 'upstream key put to sleep');
      }
      return levelFailures;
    } catch (error) {
      this.warn(error);
      return 0;
    }
  }

  async recordModelFailure(ownerId: string, keyId: string, model: string): Promise<void> {
    try {
      const failures = this.keys.pairFailures(keyId, model);
      const result = await this.redis
        .multi()
        .incr(failures)
        .expire(failures, KEY_STATE_TTL_SECONDS)
        .get(this.keys.pairSleeps(keyId, model))
        .hset(this.keys.failing(ownerId), keyModelField(keyId, model), '1')
        .expire(this.keys.failing(ownerId), KEY_STATE_TTL_SECONDS)
        .exec();
      const consecutive = Number(result?.[0]?.[1] ?? 0);
      const step = Number(result?.[2]?.[1] ?? 0);
      const sleepMs = sleepAfterFailure(FailureClass.Model, consecutive, step);
      if (sleepMs === 0) {
        return;
      }
      const until = this.now() + sleepMs;
      await this.redis
        .multi()
        .hset(
          this.keys.sleepingModels(ownerId),
          keyModelField(keyId, model),
          encodeSleep({ until, failure: FailureClass.Model, step: step + 1 }),
        )
        // Longer than any sleep: the hash goes a day after its last entry was written.
        .expire(this.keys.sleepingModels(ownerId), KEY_STATE_TTL_SECONDS)
        .set(this.keys.pairSleeps(keyId, model), String(step + 1), 'EX', KEY_STATE_TTL_SECONDS)
        .del(failures)
        .exec();
      keySleeps.labels(keyId, FailureClass.Model).inc();
      this.log.warn({ ownerId, keyId, model, sleepMs }, 'upstream key put to sleep for one model');
    } catch (error) {
      this.warn(error);
    }
  }

  async recordSuccess(ownerId: string, keyId: string, model: string): Promise<void> {
    try {
      // One round trip: counters reset, and a key that a probe found healthy wakes.
      await this.redis
        .multi()
        .del(
          this.keys.failures(keyId),
          this.keys.sleeps(keyId),
          this.keys.pairFailures(keyId, model),
          this.keys.pairSleeps(keyId, model),
        )
        .hdel(this.keys.sleeping(ownerId), keyId)
        .hdel(this.keys.failing(ownerId), keyId, keyModelField(keyId, model))
        .exec();
    } catch (error) {
      this.warn(error);
    }
  }

  async claimProbe(ownerId: string, level: number, intervalMs: number): Promise<boolean> {
    try {
      return (
        (await this.redis.set(
          this.keys.probe(ownerId, level),
          String(this.now()),
          'PX',
          intervalMs,
          'NX',
        )) === 'OK'
      );
    } catch (error) {
      this.warn(error);
      return false;
    }
  }

  async switchLevel(ownerId: string, level: number, until: number): Promise<boolean> {
    try {
      const set = await this.redis.hsetnx(
        this.keys.switched(ownerId),
        String(level),
        encodeSwitch({ until, at: this.now() }),
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
        .hdel(this.keys.switched(ownerId), String(level))
        .del(this.keys.levelFailures(ownerId, level))
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
