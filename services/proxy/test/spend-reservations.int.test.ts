import { randomBytes } from 'node:crypto';
import { connectRedis, createLogger } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpendReservation } from '../src/domain/ports/spend-reservations.js';
import { RedisAdmission } from '../src/transport/redis/admission.js';
import { RedisKeyHealth } from '../src/transport/redis/key-health.js';
import { RedisRateLimiter } from '../src/transport/redis/rate-limiter.js';
import { RedisSpendReservations } from '../src/transport/redis/spend-reservations.js';
import { SWEEP_AFTER_MS } from '../src/transport/redis/spend-scripts.js';
import { commandsDuring, named, SHARED_REDIS } from './redis-helpers.js';

const NOW = 1_800_000_000_000;
const LAPSE = NOW + 15 * 60_000;

describe('spend holds in Redis (running totals, each hold dropped once)', () => {
  let redis: Redis;
  const silent = createLogger('proxy-test', 'silent');
  /** The account's holds; reservations go through admission's one script, with no windows. */
  const fresh = () => {
    const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
    const spend = new RedisSpendReservations(redis, prefix);
    const admission = new RedisAdmission(redis, {
      limiter: new RedisRateLimiter(redis, prefix, silent),
      health: new RedisKeyHealth(redis, prefix, silent),
      spend,
    });
    const reserve = async (
      callId: string,
      { now = NOW, ...overrides }: Partial<SpendReservation> & { now?: number } = {},
    ) =>
      (
        await admission.admit({
          now,
          windows: [],
          ownerId: '1',
          reservation: {
            accountId: '7',
            callId,
            estimateNano: 100n,
            balanceNano: 1_000n,
            floorNano: 0n,
            maxInFlight: 100,
            inFlightUntil: LAPSE,
            ...overrides,
          },
        })
      ).reservation;
    return { prefix, spend, reserve };
  };

  beforeAll(async () => {
    redis = connectRedis(SHARED_REDIS, 'hotPath', silent, 'spend holds');
    await waitFor(async () => redis.status === 'ready', 'connected to Redis', 5_000, 20);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('admits while the balance less every hold stays above the floor, then refuses', async () => {
    const { reserve } = fresh();
    const answers = [];
    for (let index = 0; index < 11; index++) {
      answers.push(await reserve(`call-${index}`));
    }
    // 1 000 nano, 100 a call: the eleventh finds nothing left above the floor.
    expect(answers.filter((answer) => answer?.ok === true)).toHaveLength(10);
    expect(answers.at(-1)).toEqual({ ok: false, reason: 'balance' });
  });

  it('a released call and a served hold that lapsed stop counting; a live served hold counts', async () => {
    const { spend, reserve } = fresh();
    expect(await reserve('a', { estimateNano: 1_000n })).toEqual({ ok: true });
    expect(await reserve('b')).toEqual({ ok: false, reason: 'balance' });
    await spend.release('7', 'a');
    expect(await reserve('b')).toEqual({ ok: true });
    await spend.hold({ accountId: '7', holdId: 'a:1', costNano: 900n, until: NOW + 10_000, now: NOW });
    expect(await reserve('c')).toEqual({ ok: false, reason: 'balance' });
    // Once the served hold lapsed (and the sweep's margin passed), only b's estimate is held.
    expect(await reserve('c', { now: NOW + 10_000 + SWEEP_AFTER_MS })).toEqual({ ok: true });
  });

  it('a lapsed hold counts until the oldest lapsed one is SWEEP_AFTER_MS old, then all go at once', async () => {
    const { prefix, spend, reserve } = fresh();
    await spend.hold({ accountId: '7', holdId: 'a:1', costNano: 600n, until: NOW + 1_000, now: NOW });
    await spend.hold({ accountId: '7', holdId: 'b:1', costNano: 400n, until: NOW + 1_050, now: NOW });
    // Both lapsed (1 000 nano of 1 000), the older one not long enough: one look at the set, and
    // both still count.
    const early = await commandsDuring(redis, prefix, async () => {
      expect(await reserve('c', { now: NOW + 1_000 + SWEEP_AFTER_MS / 2 })).toEqual({
        ok: false,
        reason: 'balance',
      });
    });
    expect(named(early, 'zrangebyscore')).toHaveLength(1);
    expect(named(early, 'hdel')).toHaveLength(0);
    // The older one lapsed SWEEP_AFTER_MS ago: the sweep drops both, and the call fits.
    expect(await reserve('c', { now: NOW + 1_000 + SWEEP_AFTER_MS })).toEqual({ ok: true });
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({
      '#held': '100',
      '#inflight': '1',
      c: '100|f',
    });
    expect(await redis.zrange(`${prefix}spend:{7}:until`, 0, -1)).toEqual(['c']);
  });

  it('caps the calls in flight, and a released one frees its place', async () => {
    const { spend, reserve } = fresh();
    expect(await reserve('a', { maxInFlight: 2 })).toEqual({ ok: true });
    expect(await reserve('b', { maxInFlight: 2 })).toEqual({ ok: true });
    expect(await reserve('c', { maxInFlight: 2 })).toEqual({ ok: false, reason: 'in_flight' });
    await spend.release('7', 'a');
    await spend.release('7', 'a');
    expect(await reserve('c', { maxInFlight: 2 })).toEqual({ ok: true });
    expect(await reserve('d', { maxInFlight: 2 })).toEqual({ ok: false, reason: 'in_flight' });
  });

  it('a hold that ends the call releases its estimate in the same step, once', async () => {
    const { prefix, spend, reserve } = fresh();
    expect(await reserve('a', { estimateNano: 600n, maxInFlight: 1 })).toEqual({ ok: true });
    const settle = { accountId: '7', holdId: 'a:1', costNano: 250n, until: NOW + 10_000, now: NOW };
    await spend.hold({ ...settle, releasing: 'a' });
    await spend.hold({ ...settle, releasing: 'a' });
    // The call's entry now holds the served cost, and its place in flight is free again.
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({
      '#held': '250',
      '#inflight': '0',
      a: '250|s',
    });
    expect(await redis.zrange(`${prefix}spend:{7}:until`, 0, -1, 'WITHSCORES')).toEqual([
      'a',
      String(NOW + 10_000),
    ]);
    expect(await reserve('b', { estimateNano: 750n, maxInFlight: 1 })).toEqual({ ok: true });
    expect(await reserve('c', { estimateNano: 1n, maxInFlight: 2 })).toEqual({
      ok: false,
      reason: 'balance',
    });
  });

  it('frees the place of a free call (an estimate of 0) too', async () => {
    const { spend, reserve } = fresh();
    expect(await reserve('free', { maxInFlight: 1, estimateNano: 0n })).toEqual({ ok: true });
    expect(await reserve('next', { maxInFlight: 1 })).toEqual({ ok: false, reason: 'in_flight' });
    await spend.release('7', 'free');
    expect(await reserve('next', { maxInFlight: 1 })).toEqual({ ok: true });
  });

  it('keeps only live holds: lapsed ones leave the keys as later calls come', async () => {
    const { prefix, spend, reserve } = fresh();
    await Promise.all(
      Array.from({ length: 300 }, (_, index) =>
        spend.hold({ accountId: '7', holdId: `old-${index}`, costNano: 1n, until: NOW + 1_000, now: NOW }),
      ),
    );
    expect(await reserve('new', { now: NOW + 1_000 + SWEEP_AFTER_MS })).toEqual({ ok: true });
    const holds = await redis.hgetall(`${prefix}spend:{7}`);
    expect(holds).toEqual({ '#held': '100', '#inflight': '1', new: '100|f' });
    expect(await redis.zrange(`${prefix}spend:{7}:until`, 0, -1)).toEqual(['new']);
  });

  it('sweeps a burst of lapsed holds in a few commands, not four per hold', async () => {
    const { prefix, spend, reserve } = fresh();
    await Promise.all(
      Array.from({ length: 300 }, (_, index) =>
        spend.hold({ accountId: '7', holdId: `old-${index}`, costNano: 2n, until: NOW + 1_000, now: NOW }),
      ),
    );
    const commands = await commandsDuring(redis, prefix, async () => {
      expect(await reserve('new', { now: NOW + 1_000 + SWEEP_AFTER_MS })).toEqual({ ok: true });
    });
    expect(commands.length).toBeLessThan(20);
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({
      '#held': '100',
      '#inflight': '1',
      new: '100|f',
    });
    expect(await redis.zrange(`${prefix}spend:{7}:until`, 0, -1)).toEqual(['new']);
  });

  it("renews the keys' expiry only when a hold would outlive them, with room to spare", async () => {
    const { prefix, reserve } = fresh();
    expect(await reserve('a')).toEqual({ ok: true });
    const renewals = named(
      await commandsDuring(redis, prefix, () => reserve('b', { now: NOW + 1, inFlightUntil: LAPSE + 1 })),
      'pexpire',
    );
    expect(renewals).toEqual([]);
    // Both keys outlive the latest hold's lapse time (15 minutes on) by a margin.
    for (const key of [`${prefix}spend:{7}`, `${prefix}spend:{7}:until`]) {
      expect(await redis.pttl(key)).toBeGreaterThan(15 * 60_000);
    }
  });

  it("reads a call's entry with the totals, so a reservation takes one HMGET and no HGET", async () => {
    const { prefix, reserve } = fresh();
    expect(await reserve('a')).toEqual({ ok: true });
    const commands = await commandsDuring(redis, prefix, () => reserve('b'));
    expect(named(commands, 'hget')).toEqual([]);
    expect(named(commands, 'hmget').map((args) => args.slice(2))).toEqual([['#held', '#inflight', 'b']]);
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({
      '#held': '200',
      '#inflight': '2',
      a: '100|f',
      b: '100|f',
    });
  });

  it('a call reserved again is held and in flight once, at its new estimate and lapse time', async () => {
    const { prefix, reserve } = fresh();
    expect(await reserve('a', { estimateNano: 300n })).toEqual({ ok: true });
    expect(await reserve('b', { estimateNano: 5n })).toEqual({ ok: true });
    expect(await reserve('a', { estimateNano: 200n, inFlightUntil: LAPSE + 1 })).toEqual({ ok: true });
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({
      '#held': '205',
      '#inflight': '2',
      a: '200|f',
      b: '5|f',
    });
    expect(await redis.zscore(`${prefix}spend:{7}:until`, 'a')).toBe(String(LAPSE + 1));
  });

  it('a hold added again as the only one of its set takes its new time, and the set keeps its expiry', async () => {
    const { prefix, spend } = fresh();
    const hold = { accountId: '7', holdId: 'x', costNano: 40n, now: NOW };
    await spend.hold({ ...hold, until: LAPSE });
    await spend.hold({ ...hold, costNano: 30n, until: LAPSE - 1_000 });
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({ '#held': '30', x: '30|s' });
    expect(await redis.zrange(`${prefix}spend:{7}:until`, 0, -1, 'WITHSCORES')).toEqual([
      'x',
      String(LAPSE - 1_000),
    ]);
    // The hash still lapses later than the new time, so neither key's expiry is renewed, and
    // neither loses it.
    expect(await redis.pttl(`${prefix}spend:{7}:until`)).toBeGreaterThan(0);
    expect(await redis.pttl(`${prefix}spend:{7}`)).toBeGreaterThan(0);
  });

  it('an id the set still names after the hash expired is held anew and counted once', async () => {
    const { prefix, spend, reserve } = fresh();
    await spend.hold({ accountId: '7', holdId: 'x', costNano: 40n, until: LAPSE, now: NOW });
    await redis.del(`${prefix}spend:{7}`);
    expect(await reserve('x', { estimateNano: 70n, maxInFlight: 1 })).toEqual({ ok: true });
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({ '#held': '70', '#inflight': '1', x: '70|f' });
    expect(await redis.zrange(`${prefix}spend:{7}:until`, 0, -1, 'WITHSCORES')).toEqual(['x', String(LAPSE)]);
    await spend.release('7', 'x');
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({ '#held': '0', '#inflight': '0' });
    expect(await redis.exists(`${prefix}spend:{7}:until`)).toBe(0);
  });

  it('keeps amounts beyond 2^53 nano exact in its totals', async () => {
    const { prefix, spend } = fresh();
    const big = 2n ** 60n + 1n;
    await spend.hold({ accountId: '7', holdId: 'x', costNano: big, until: LAPSE, now: NOW });
    await spend.hold({ accountId: '7', holdId: 'y', costNano: 3n, until: LAPSE, now: NOW });
    expect(await redis.hget(`${prefix}spend:{7}`, '#held')).toBe(String(big + 3n));
    await spend.release('7', 'x');
    expect(await redis.hget(`${prefix}spend:{7}`, '#held')).toBe('3');
  });

  it("a served hold goes in this replica's next admission, ahead of its reservation", async () => {
    const { prefix, spend, reserve } = fresh();
    const held = spend.hold({ accountId: '7', holdId: 'a:1', costNano: 1_000n, until: LAPSE, now: NOW });
    // Nothing was sent for it yet: it waits for a round trip to share.
    expect(await redis.exists(`${prefix}spend:{7}`)).toBe(0);
    // The reservation finds the hold already counted: 1 000 nano held of 1 000.
    expect(await reserve('b')).toEqual({ ok: false, reason: 'balance' });
    await held;
    expect(await redis.hget(`${prefix}spend:{7}`, 'a:1')).toBe('1000|s');
  });

  it('sweeps an account once when an admission carries its served hold and its reservation', async () => {
    const { prefix, spend, reserve } = fresh();
    const held = spend.hold({ accountId: '7', holdId: 'a:1', costNano: 5n, until: LAPSE, now: NOW - 10 });
    const sweeps = named(await commandsDuring(redis, prefix, () => reserve('b')), 'zrangebyscore');
    await held;
    expect(sweeps).toHaveLength(1);
    expect(await redis.hget(`${prefix}spend:{7}`, '#held')).toBe('105');
  });

  it('changes each total once and reads one PTTL when an admission settles a call and reserves the next', async () => {
    const { prefix, spend, reserve } = fresh();
    expect(await reserve('a', { estimateNano: 300n })).toEqual({ ok: true });
    const settled = spend.hold({
      accountId: '7',
      holdId: 'a:1',
      costNano: 120n,
      until: NOW + 10_000,
      now: NOW,
      releasing: 'a',
    });
    const commands = await commandsDuring(redis, prefix, () => reserve('b', { estimateNano: 200n }));
    await settled;
    expect(named(commands, 'pttl')).toHaveLength(1);
    // a's estimate leaves, its cost and b's estimate come: one HINCRBY of '#held' for all three,
    // and a's place in flight passes to b in the HSET that holds b.
    expect(named(commands, 'hincrby').map((args) => args.slice(2))).toEqual([['#held', '20']]);
    expect(await redis.hgetall(`${prefix}spend:{7}`)).toEqual({
      '#held': '320',
      '#inflight': '1',
      a: '120|s',
      b: '200|f',
    });
  });

  it('a served hold with no admission after it goes on its own, and flush sends it at once', async () => {
    const { prefix, spend } = fresh();
    await spend.hold({ accountId: '7', holdId: 'a:1', costNano: 5n, until: LAPSE, now: NOW });
    expect(await redis.hget(`${prefix}spend:{7}`, 'a:1')).toBe('5|s');

    const held = spend.hold({ accountId: '7', holdId: 'a:2', costNano: 6n, until: LAPSE, now: NOW });
    await spend.flush();
    expect(await redis.hget(`${prefix}spend:{7}`, 'a:2')).toBe('6|s');
    await held;
  });
});
