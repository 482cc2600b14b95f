import { randomBytes } from 'node:crypto';
import { createLogger, METRIC, serviceMetrics } from '@gw/kit';
import { startRedisServer, waitFor, type PrivateRedis } from '@gw/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_MS, LIMIT_FIELDS, WINDOW_MS, type LimitWindow } from '../src/domain/limits.js';
import { LocalLimiter } from '../src/domain/local-limiter.js';
import { RedisRateLimiter } from '../src/transport/redis/rate-limiter.js';
import { recordingLogger } from './log-helpers.js';
import { commandsDuring, connected, named, SHARED_REDIS } from './redis-helpers.js';

/** Deterministic pseudo-random numbers (mulberry32), so a failing sequence can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mid-bucket, so a window's end is not at a bucket boundary. */
const T0 = 1_800_000_000_000 + 400;

describe('rate limits in Redis (one script per call)', () => {
  let redis: Redis;
  const silent = createLogger('proxy-test', 'silent');
  const limiter = () => new RedisRateLimiter(redis, `gw-test-${randomBytes(6).toString('hex')}:`, silent);

  beforeAll(async () => {
    redis = await connected(SHARED_REDIS, silent);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('admits the Nth request, refuses the N+1th until its oldest bucket leaves the window, then admits', async () => {
    const rpm: LimitWindow[] = [{ scope: 'a:1', field: 'rpm', limit: 3 }];
    const shared = limiter();
    for (let n = 1; n <= 3; n++) {
      const admission = await shared.admit(rpm, T0);
      expect(admission.ok).toBe(true);
      expect(admission.windows[0]?.count).toBe(n);
    }
    const refused = await shared.admit(rpm, T0 + 1);
    const bucketStart = T0 - (T0 % BUCKET_MS.rpm);
    expect(refused).toMatchObject({ ok: false, retryAt: bucketStart + WINDOW_MS.rpm + BUCKET_MS.rpm });
    expect(refused.windows[0]?.count).toBe(3);
    expect((await shared.admit(rpm, refused.retryAt - 1)).ok).toBe(false);
    expect((await shared.admit(rpm, refused.retryAt)).ok).toBe(true);
  });

  /** A limiter on a prefix of its own, and how many `command`s one admission of `windows` sends. */
  const counting = (command: string, windows: LimitWindow[]) => {
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    const shared = new RedisRateLimiter(redis, prefix, silent);
    const sent = async (at: number) =>
      named(await commandsDuring(redis, prefix, () => shared.admit(windows, at)), command).length;
    return { prefix, shared, sent };
  };

  it("renews a window's expiry when a bucket opens, not on every call counted in it", async () => {
    const rpm: LimitWindow[] = [{ scope: 'a:3', field: 'rpm', limit: 100 }];
    const { prefix, sent: renewals } = counting('pexpire', rpm);
    expect(await renewals(T0)).toBe(1);
    expect(await renewals(T0 + 1)).toBe(0);
    expect(await redis.pttl(`${prefix}rl:a:3:rpm`)).toBeGreaterThan(0);
    // The next bucket opens: the window lives on a bucket longer.
    expect(await renewals(T0 + BUCKET_MS.rpm)).toBe(1);
  });

  it('counts a call in an open bucket with one HSET of the bucket and the sum, read with the window', async () => {
    const rpm: LimitWindow[] = [{ scope: 'a:6', field: 'rpm', limit: 100 }];
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    const shared = new RedisRateLimiter(redis, prefix, silent);
    await shared.admit(rpm, T0);
    const commands = await commandsDuring(redis, prefix, () => shared.admit(rpm, T0 + 1));
    const bucket = String(T0 - (T0 % BUCKET_MS.rpm));
    expect(named(commands, 'hincrby')).toEqual([]);
    expect(named(commands, 'hmget').map((args) => args.slice(2))).toEqual([['s', 'o', bucket]]);
    expect(named(commands, 'hset').map((args) => args.slice(2))).toEqual([[bucket, '2', 's', '2']]);
    expect(await redis.hgetall(`${prefix}rl:a:6:rpm`)).toEqual({ [bucket]: '2', s: '2', o: bucket });
  });

  it('reads no bucket while the oldest one holding requests is still in the window', async () => {
    const rpm: LimitWindow[] = [{ scope: 'a:5', field: 'rpm', limit: 100 }];
    const { shared, sent: bucketReads } = counting('hget', rpm);
    await shared.admit(rpm, T0);
    expect(await bucketReads(T0 + 5 * BUCKET_MS.rpm)).toBe(0);
    // A minute on, the first bucket has left the window: it is read, dropped, and the next found.
    expect(await bucketReads(T0 + WINDOW_MS.rpm + BUCKET_MS.rpm)).toBeGreaterThan(0);
    // Counted in it: the calls at 5 s and at a minute on, and this one.
    expect((await shared.admit(rpm, T0 + WINDOW_MS.rpm + 2 * BUCKET_MS.rpm)).windows[0]?.count).toBe(3);
  });

  it('counts tokens once the usage is known and refuses while a token window is full', async () => {
    const windows: LimitWindow[] = [
      { scope: 'a:2', field: 'rpm', limit: 100 },
      { scope: 'a:2', field: 'tpm', limit: 50 },
    ];
    const shared = limiter();
    expect((await shared.admit(windows, T0)).ok).toBe(true);
    await shared.addTokens(windows, 49, T0);
    // 49 < 50: room for one more call, whatever it will use.
    expect((await shared.admit(windows, T0)).ok).toBe(true);
    await shared.addTokens(windows, 30, T0);
    const refused = await shared.admit(windows, T0);
    expect(refused.ok).toBe(false);
    expect(refused.windows.map((w) => w.count)).toEqual([2, 79]);
  });

  it('counts waiting tokens and the window they go to in one step, dropping the bucket that left it', async () => {
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    const shared = new RedisRateLimiter(redis, prefix, silent);
    const windows: LimitWindow[] = [
      { scope: 'a:9', field: 'tpm', limit: 1_000 },
      { scope: 'a:9', field: 'rpm', limit: 10 },
    ];
    const bucket = (at: number) => String(at - (at % BUCKET_MS.tpm));
    await shared.addTokens(windows, 500, T0);
    const first = await shared.admit(windows, T0);
    expect(first.windows.map((w) => w.count)).toEqual([500, 1]);
    expect(await redis.hgetall(`${prefix}rl:a:9:tpm`)).toEqual({
      [bucket(T0)]: '500',
      s: '500',
      o: bucket(T0),
    });
    const later = T0 + WINDOW_MS.tpm + BUCKET_MS.tpm;
    await shared.addTokens(windows, 200, later);
    const second = await shared.admit(windows, later);
    expect(second.windows.map((w) => w.count)).toEqual([200, 1]);
    expect(second.windows[0]?.freesAt).toBe(Number(bucket(later)) + WINDOW_MS.tpm + BUCKET_MS.tpm);
    expect(await redis.hgetall(`${prefix}rl:a:9:tpm`)).toEqual({
      [bucket(later)]: '200',
      s: '200',
      o: bucket(later),
    });
    expect(await redis.hgetall(`${prefix}rl:a:9:rpm`)).toEqual({
      [bucket(later)]: '1',
      s: '1',
      o: bucket(later),
    });
  });

  it('takes back a refunded request', async () => {
    const rpd: LimitWindow[] = [{ scope: 'a:3', field: 'rpd', limit: 1 }];
    const shared = limiter();
    expect((await shared.admit(rpd, T0)).ok).toBe(true);
    expect((await shared.admit(rpd, T0)).ok).toBe(false);
    await shared.refund(rpd, T0);
    expect((await shared.admit(rpd, T0)).ok).toBe(true);
  });

  it('frees a full window when its oldest counted request frees, after a refund emptied the oldest bucket', async () => {
    const rpm: LimitWindow[] = [{ scope: 'a:4', field: 'rpm', limit: 2 }];
    const shared = limiter();
    const local = new LocalLimiter();
    const both = (at: number) => Promise.all([shared.admit(rpm, at), local.admit(rpm, at)]);
    await both(T0);
    await both(T0 + 10_000);
    await Promise.all([shared.refund(rpm, T0), local.refund(rpm, T0)]);
    await both(T0 + 11_000);
    const [refused, expected] = await both(T0 + 12_000);
    // The bucket of T0 + 10 s is now the oldest holding a request: it leaves the window a minute on.
    const later = T0 + 10_000;
    expect(refused.retryAt).toBe(later - (later % BUCKET_MS.rpm) + WINDOW_MS.rpm + BUCKET_MS.rpm);
    expect(refused).toEqual(expected);
  });

  it('decides exactly as the local fallback does, operation for operation', async () => {
    const random = seeded(20261123);
    const shared = limiter();
    const local = new LocalLimiter();
    let now = T0;
    let lastAdmit = { windows: [] as LimitWindow[], at: T0 };
    for (let step = 0; step < 2000; step++) {
      // Mostly steps of up to 20 s (minute buckets turn over), now and then up to two hours (hour
      // and day windows lose buckets, minute windows empty).
      now += Math.floor(random() * (random() < 0.05 ? 7_200_000 : 20_000));
      const windows = LIMIT_FIELDS.filter(() => random() < 0.5).map((field) => ({
        scope: `a:${Math.floor(random() * 2)}`,
        field,
        limit: 1 + Math.floor(random() * 8),
      }));
      const operation = random();
      if (operation < 0.7) {
        const [fromRedis, fromMemory] = await Promise.all([
          shared.admit(windows, now),
          local.admit(windows, now),
        ]);
        expect(fromRedis, `step ${step}`).toEqual(fromMemory);
        lastAdmit = { windows, at: now };
      } else if (operation < 0.9) {
        const tokens = Math.floor(random() * 4);
        await Promise.all([shared.addTokens(windows, tokens, now), local.addTokens(windows, tokens, now)]);
      } else {
        // As the relay does: the last admitted call taken back, at the time it was admitted.
        await Promise.all([
          shared.refund(lastAdmit.windows, lastAdmit.at),
          local.refund(lastAdmit.windows, lastAdmit.at),
        ]);
      }
    }
  });

  it("counts one replica's tokens for every replica within moments, without a call of its own to carry them", async () => {
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    const other = await connected(SHARED_REDIS, silent);
    const [first, second] = [
      new RedisRateLimiter(redis, prefix, silent),
      new RedisRateLimiter(other, prefix, silent),
    ];
    const windows: LimitWindow[] = [{ scope: 'a:5', field: 'tpm', limit: 50 }];
    const now = Date.now();
    await first.addTokens(windows, 50, now);
    await waitFor(
      async () => !(await second.admit(windows, Date.now())).ok,
      'the tokens seen by the other replica',
      2_000,
      10,
    );
    await other.quit();
  });

  it('holds one limit for every replica: concurrent calls through two limiters admit exactly the limit', async () => {
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    const other = await connected(SHARED_REDIS, silent);
    const replicas = [
      new RedisRateLimiter(redis, prefix, silent),
      new RedisRateLimiter(other, prefix, silent),
    ];
    const windows: LimitWindow[] = [{ scope: 'a:4', field: 'rph', limit: 10 }];
    const admissions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => replicas[i % 2]!.admit(windows, T0)),
    );
    await other.quit();
    expect(admissions.filter((a) => a.ok)).toHaveLength(10);
  });
});

describe('rate limits while Redis is out (a private redis-server, stopped and started)', () => {
  let server: PrivateRedis;
  let redis: Redis;
  const recorded = recordingLogger();
  let limiter: RedisRateLimiter;
  const windows: LimitWindow[] = [{ scope: 'a:9', field: 'rpm', limit: 3 }];
  const admitted = async (count: number) => {
    const results = [];
    for (let i = 0; i < count; i++) {
      results.push((await limiter.admit(windows, Date.now())).ok);
    }
    return results;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    redis = await connected(server.url, recorded.log);
    limiter = new RedisRateLimiter(redis, 'gw-test:', recorded.log);
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('fails open to this replica’s own counters, bounded by the limit, warning once; shared again once Redis is back', async () => {
    expect(await admitted(4)).toEqual([true, true, true, false]);

    const fallbacks = async () =>
      (await serviceMetrics().registry.getSingleMetric(METRIC.rateLimiterFallbacks)?.get())?.values[0]
        ?.value ?? 0;
    const before = await fallbacks();
    await server.stop();
    // Redis forgot nothing the fallback needs: the local counters start empty and hold the limit.
    expect(await admitted(4)).toEqual([true, true, true, false]);
    expect(recorded.warnings.filter((m) => m.includes('Redis unreachable'))).toHaveLength(1);
    // Warned once, counted every time: the metric shows how long the outage lasted.
    expect((await fallbacks()) - before).toBe(4);

    await server.start();
    await waitFor(async () => redis.status === 'ready', 'reconnected to the private Redis', 15_000, 50);
    // Redis came back empty (no persistence): shared counting starts over, and holds the limit.
    expect(await admitted(4)).toEqual([true, true, true, false]);
    expect(await redis.hlen('gw-test:rl:a:9:rpm')).toBeGreaterThan(0);
  });
});
