import { randomBytes } from 'node:crypto';
import { createLogger, encodeSleep, keyStateKeys, type Logger } from '@gw/kit';
import { startRedisServer, waitFor, type PrivateRedis } from '@gw/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitWindow } from '../src/domain/limits.js';
import type { SpendReservation } from '../src/domain/ports/spend-reservations.js';
import { RedisAdmission } from '../src/transport/redis/admission.js';
import { RedisKeyHealth } from '../src/transport/redis/key-health.js';
import { RedisRateLimiter } from '../src/transport/redis/rate-limiter.js';
import { RedisSpendReservations } from '../src/transport/redis/spend-reservations.js';
import { recordingLogger } from './log-helpers.js';
import { connected } from './redis-helpers.js';

const NOW = 1_800_000_000_000 + 400;

/** The Redis admission over fresh keys, with the three modules it is made of. */
function admissionOn(redis: Redis, log: Logger) {
  const prefix = `gw-test-${randomBytes(6).toString('hex')}:`;
  const limiter = new RedisRateLimiter(redis, prefix, log);
  const health = new RedisKeyHealth(redis, prefix, log, () => NOW);
  const spend = new RedisSpendReservations(redis, prefix);
  return { prefix, limiter, spend, admission: new RedisAdmission(redis, { limiter, health, spend }) };
}

const reservation = (callId: string): SpendReservation => ({
  accountId: '7',
  callId,
  estimateNano: 100n,
  balanceNano: 1_000n,
  floorNano: 0n,
  maxInFlight: 10,
  inFlightUntil: NOW + 60_000,
});

// A private redis-server: MONITOR there sees this test's commands and nobody else's.
describe('RedisAdmission (one script per admission)', () => {
  let server: PrivateRedis;
  let redis: Redis;
  let monitor: Redis;
  const silent = createLogger('proxy-test', 'silent');
  /** Commands clients sent (not those scripts ran), as MONITOR lists them. */
  const seen: string[][] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    redis = await connected(server.url, silent);
    monitor = await redis.monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') {
        seen.push(args);
      }
    });
  });

  afterAll(async () => {
    monitor.disconnect();
    redis.disconnect();
    await server.stop();
  });

  /** The commands `run` sent: those MONITOR lists between two markers sent around it. */
  const commandsOf = async (run: () => Promise<unknown>): Promise<string[][]> => {
    const marker = async (name: string) => {
      await redis.echo(name);
      await waitFor(async () => seen.some((args) => args[1] === name), `MONITOR sees ${name}`, 5_000, 10);
      return seen.findIndex((args) => args[1] === name);
    };
    const id = randomBytes(4).toString('hex');
    const from = await marker(`before-${id}`);
    await run();
    const to = await marker(`after-${id}`);
    return seen.slice(from + 1, to);
  };

  it('checks and counts the windows, reads the pool state and holds the estimate in one EVALSHA', async () => {
    const { prefix, limiter, spend, admission } = admissionOn(redis, silent);
    const keys = keyStateKeys(prefix);
    const windows: LimitWindow[] = [
      { scope: 'a:7', field: 'rpm', limit: 5 },
      { scope: 'a:7', field: 'tpm', limit: 1_000 },
    ];
    // The first run loads the script (NOSCRIPT, then EVAL); every later one is a single EVALSHA.
    await admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation('warm') });
    await redis.hset(
      keys.sleeping('1'),
      'k1',
      encodeSleep({ until: NOW + 60_000, failure: 'timeout', step: 1 }),
    );
    // Tokens and the hold of a served call wait on this replica and ride along with the next admission.
    await limiter.addTokens(windows, 30, NOW);
    const held = spend.hold({ accountId: '8', holdId: 'x:1', costNano: 5n, until: NOW + 60_000, now: NOW });

    let answer: Awaited<ReturnType<RedisAdmission['admit']>> | undefined;
    const commands = await commandsOf(async () => {
      answer = await admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation('call') });
    });

    expect(commands.map(([name]) => name?.toLowerCase())).toEqual(['evalsha']);
    const spendKey = `${prefix}spend:{7}`;
    // KEYS: the windows, the waiting change, the pool's four hashes, the waiting hold's account's
    // two spend keys, the calling account's two.
    expect(commands[0]?.slice(2, 14)).toEqual([
      '11',
      `${prefix}rl:a:7:rpm`,
      `${prefix}rl:a:7:tpm`,
      `${prefix}rl:a:7:tpm`,
      keys.sleeping('1'),
      keys.switched('1'),
      keys.sleepingModels('1'),
      keys.failing('1'),
      `${prefix}spend:{8}`,
      `${prefix}spend:{8}:until`,
      spendKey,
      `${spendKey}:until`,
    ]);
    await held;
    expect(await redis.hget(`${prefix}spend:{8}`, 'x:1')).toBe('5|s');
    expect(answer?.limits.ok).toBe(true);
    expect(answer?.limits.windows.map((w) => w.count)).toEqual([2, 30]);
    expect(answer?.state.sleeping).toEqual(new Set(['k1']));
    expect(answer?.reservation).toEqual({ ok: true });
    expect(await redis.hget(spendKey, '#held')).toBe('200');
  });

  it('sends neither spend keys for a call that holds nothing nor window arguments for one without windows', async () => {
    const { prefix, admission } = admissionOn(redis, silent);
    const keys = keyStateKeys(prefix);
    await admission.admit({ now: NOW, windows: [], ownerId: '2', reservation: undefined });

    let answer: Awaited<ReturnType<RedisAdmission['admit']>> | undefined;
    const commands = await commandsOf(async () => {
      answer = await admission.admit({ now: NOW, windows: [], ownerId: '2', reservation: undefined });
    });

    expect(commands).toHaveLength(1);
    expect(commands[0]?.slice(2)).toEqual([
      '4',
      keys.sleeping('2'),
      keys.switched('2'),
      keys.sleepingModels('2'),
      keys.failing('2'),
      String(NOW),
      '0',
      '0',
      '0',
    ]);
    expect(answer).toEqual({
      limits: { ok: true, windows: [], retryAt: NOW },
      state: {
        sleeping: new Set(),
        sleepDetails: new Map(),
        switched: new Set(),
        cooledDown: [],
        failing: new Set(),
      },
      reservation: undefined,
    });
  });

  it('refuses on a full window and on a balance held to the floor in the same answer', async () => {
    const { admission } = admissionOn(redis, silent);
    const windows: LimitWindow[] = [{ scope: 'a:8', field: 'rpm', limit: 1 }];
    const first = await admission.admit({
      now: NOW,
      windows,
      ownerId: '1',
      reservation: { ...reservation('a'), estimateNano: 1_000n },
    });
    expect(first.limits.ok).toBe(true);
    expect(first.reservation).toEqual({ ok: true });
    const second = await admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation('b') });
    expect(second.limits).toMatchObject({ ok: false, windows: [{ count: 1 }] });
    expect(second.reservation).toEqual({ ok: false, reason: 'balance' });
  });

  it('sends the admissions of one turn together, each with its own answer, in the order they came', async () => {
    const { prefix, admission } = admissionOn(redis, silent);
    const windows: LimitWindow[] = [{ scope: 'a:10', field: 'rpm', limit: 15 }];
    await admission.admit({ now: NOW, windows: [], ownerId: '1', reservation: undefined });

    let answers: Array<Awaited<ReturnType<RedisAdmission['admit']>>> = [];
    const commands = await commandsOf(async () => {
      answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation(`t${index}`) }),
        ),
      );
    });

    expect(commands.map(([name]) => name?.toLowerCase())).toEqual(Array(20).fill('evalsha'));
    expect(answers.map((answer) => answer.limits.ok)).toEqual([
      ...Array(15).fill(true),
      ...Array(5).fill(false),
    ]);
    expect(answers.slice(0, 15).map((answer) => answer.limits.windows[0]?.count)).toEqual(
      Array.from({ length: 15 }, (_, index) => index + 1),
    );
    // Ten estimates of 100 fill the balance of 1 000 (and the ten calls allowed in flight).
    expect(answers.map((answer) => answer.reservation?.ok)).toEqual([
      ...Array(10).fill(true),
      ...Array(10).fill(false),
    ]);
    expect(await redis.hget(`${prefix}spend:{7}`, '#held')).toBe('1000');
  });
});

describe('RedisAdmission while Redis is out (a private redis-server, stopped and started)', () => {
  let server: PrivateRedis;
  let redis: Redis;
  const recorded = recordingLogger();

  beforeAll(async () => {
    server = await startRedisServer();
    redis = await connected(server.url, recorded.log);
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('fails open part by part: windows on this replica, every key awake, the reservation unknown', async () => {
    const { prefix, spend, admission } = admissionOn(redis, recorded.log);
    const windows: LimitWindow[] = [{ scope: 'a:9', field: 'rpm', limit: 2 }];
    await redis.hset(
      keyStateKeys(prefix).sleeping('1'),
      'k1',
      encodeSleep({ until: NOW + 60_000, failure: 'timeout', step: 1 }),
    );
    await server.stop();

    // A served hold waiting to ride along: its caller hears that it did not land.
    const held = spend
      .hold({ accountId: '7', holdId: 'x:1', costNano: 5n, until: NOW + 60_000, now: NOW })
      .then(
        () => 'landed',
        () => 'failed',
      );
    const answers = [];
    for (let index = 0; index < 3; index++) {
      answers.push(
        await admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation(`c${index}`) }),
      );
    }
    // The local counters hold the limit; the sleeping key counts as awake; nothing is reserved.
    expect(answers.map((answer) => answer.limits.ok)).toEqual([true, true, false]);
    expect(answers.every((answer) => answer.state.sleeping.size === 0)).toBe(true);
    expect(answers.map((answer) => answer.reservation?.ok)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(recorded.warnings.filter((m) => m.includes('rate limits: Redis unreachable'))).toHaveLength(1);
    expect(recorded.warnings.filter((m) => m.includes('key state store unavailable'))).toHaveLength(1);
    expect(await held).toBe('failed');
    // Admissions of one turn, sent together, fail open each on its own terms too.
    const together = await Promise.all(
      ['e0', 'e1'].map((callId) =>
        admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation(callId) }),
      ),
    );
    expect(together.map((answer) => [answer.limits.ok, answer.reservation?.ok])).toEqual([
      [false, 'unknown'],
      [false, 'unknown'],
    ]);

    await server.start();
    await waitFor(async () => redis.status === 'ready', 'reconnected to the private Redis', 15_000, 50);
    // Redis came back empty: shared counting and holding start over.
    const back = await admission.admit({ now: NOW, windows, ownerId: '1', reservation: reservation('d') });
    expect(back.limits).toMatchObject({ ok: true, windows: [{ count: 1 }] });
    expect(back.reservation).toEqual({ ok: true });
    expect(await redis.hget(`${prefix}spend:{7}`, 'd')).toBe('100|f');
  });
});
