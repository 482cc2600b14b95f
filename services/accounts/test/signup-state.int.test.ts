import { fileURLToPath } from 'node:url';
import { AppError, createLogger, openDatabase, usd, type DatabaseHandle } from '@gw/kit';
import { createTestDatabase, type TestDatabase } from '@gw/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapRoot } from '../src/domain/bootstrap-root.js';
import { completeSignup } from '../src/domain/complete-signup.js';
import { createAccount } from '../src/domain/create-account.js';
import type { AccountRecord } from '../src/domain/model.js';
import { requestSignupCode } from '../src/domain/request-signup-code.js';
import type { SignupDeps, SignupLimits } from '../src/domain/signup-ports.js';
import {
  MAX_DAILY_FAILURES,
  MAX_WRONG_CODES,
  SIGNUP_COOLDOWN_MS,
  SIGNUP_LIFETIME_MS,
  signupHasher,
} from '../src/domain/signup-rules.js';
import { DrizzleAccountsStore } from '../src/store/accounts-store.js';
import { RedisSignupStore } from '../src/store/redis-signup-store.js';

/**
 * The signup state table against real Redis and PostgreSQL, with the service's clock injected so
 * the 2-minute and 10-minute boundaries are reached without waiting. Mails are the SignupMail
 * port, recorded (the end-to-end test sends them through the real mailer).
 */
interface Sent {
  kind: 'verification' | 'welcome';
  email?: string;
  code?: string;
  token?: string;
  accountId?: bigint;
  secretKey?: string;
}

const MINUTE = 60_000;
const SECOND = 1_000;

describe('signup state (request, verify, activate)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let redis: Redis;
  let deps: SignupDeps;
  let root: AccountRecord;
  let desk: AccountRecord;
  let now = Date.parse('2030-06-15T10:00:00Z');
  let sent: Sent[] = [];
  let mailWorks = true;
  const prefix = `gw-test-${Date.now().toString(36)}:signup:`;
  const limits: SignupLimits = {
    lifetimeMs: SIGNUP_LIFETIME_MS,
    cooldownMs: SIGNUP_COOLDOWN_MS,
    maxWrongCodes: MAX_WRONG_CODES,
    maxDailyFailures: MAX_DAILY_FAILURES,
    safe: true,
    ipDailyCap: 10,
    dailyCap: 1000,
  };
  let counter = 0;
  const fresh = () => `person${Date.now().toString(36)}${++counter}@example.com`;
  const advance = (ms: number) => {
    now += ms;
  };

  const request = (email: string, ip = '203.0.113.1') => requestSignupCode(deps, { email, ipAddress: ip });
  const refusal = async (work: Promise<unknown>): Promise<{ code: string; message: string }> => {
    try {
      await work;
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return { code: (error as AppError).code, message: (error as AppError).message };
    }
    throw new Error('expected a refusal');
  };
  const lastCode = (email: string) => {
    const mail = sent.filter((entry) => entry.kind === 'verification' && entry.email === email).at(-1);
    if (!mail?.code || !mail.token) {
      throw new Error(`no verification mail for ${email}`);
    }
    return { code: mail.code, token: mail.token };
  };
  const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const balance = async (id: bigint) =>
    (await deps.store.lots.live([id], new Date(now))).reduce((sum, lot) => sum + lot.remainingNano, 0n);
  const welcomes = () => sent.filter((entry) => entry.kind === 'welcome');

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({
      url: database.url,
      dataDir: '/tmp',
      schema: 'accounts',
      migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
      log: createLogger('signup-test', 'silent'),
    });
    redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    deps = {
      store: new DrizzleAccountsStore(handle.db),
      events: { accountChanged: () => undefined, audit: () => undefined },
      clock: { now: () => new Date(now) },
      alerts: { softLimitReached: () => Promise.resolve() },
      policy: { apiBalanceFloorNano: 0n, tenancy: 'single' },
      signupStore: new RedisSignupStore(redis, prefix),
      signupMail: {
        sendVerification: (input) => {
          if (mailWorks) {
            sent.push({ kind: 'verification', ...input });
          }
          return Promise.resolve(mailWorks);
        },
        sendWelcome: (input) => {
          sent.push({ kind: 'welcome', ...input });
          return Promise.resolve(true);
        },
      },
      signupPolicy: { owner: 'root', creditNano: usd(2), limits, hash: signupHasher('ab'.repeat(32)) },
    };
    root = (await bootstrapRoot(deps, `sk-root-${'x'.repeat(30)}`)).root;
    const created = await createAccount(deps, {
      callerId: root.id,
      fields: { name: 'signupdesk', email: 'desk@example.com' },
      creditGrantedNano: usd(10),
      days: undefined,
      idempotencyKey: '',
    });
    desk = created.account;
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) {
      await redis.del(...keys);
    }
    redis.disconnect();
    await handle.close();
    await database.drop();
  });

  beforeEach(async () => {
    sent = [];
    mailWorks = true;
    limits.safe = true;
    deps.signupPolicy.owner = 'root';
    // Each test starts a new day: the daily counters of one test never reach into the next.
    advance(24 * 60 * MINUTE);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) {
      await redis.del(...keys);
    }
  });

  it('sends a code, then refuses another for the address at 1:59 and sends one at 2:00', async () => {
    const email = fresh();
    await request(email);
    advance(2 * MINUTE - SECOND);
    expect(await refusal(request(email))).toEqual({
      code: 'rate_limited',
      message: 'Please wait before requesting another verification code',
    });
    expect(sent).toHaveLength(1);
    advance(SECOND);
    await request(email);
    expect(sent).toHaveLength(2);
  });

  it('counts every spelling of one address in one bucket', async () => {
    const local = `variant${Date.now().toString(36)}`;
    await request(`${local}@bücher.example`);
    for (const variant of [`${local.toUpperCase()}@XN--BCHER-KVA.EXAMPLE`, `  ${local}@Bücher.Example  `]) {
      expect((await refusal(request(variant))).code).toBe('rate_limited');
    }
    expect(sent.map((entry) => entry.email)).toEqual([`${local}@xn--bcher-kva.example`]);
  });

  it('keeps the per-address wait with SAFE_ENABLE off, but not the per-IP cap', async () => {
    limits.safe = false;
    const email = fresh();
    await request(email);
    expect((await refusal(request(email))).code).toBe('rate_limited');
    for (let i = 0; i < 12; i++) {
      await request(fresh());
    }
    expect(sent).toHaveLength(13);
  });

  it('sends 10 codes a day to one client and refuses the 11th; another client is not affected', async () => {
    for (let i = 0; i < 10; i++) {
      await request(fresh(), '198.51.100.7');
    }
    expect(await refusal(request(fresh(), '198.51.100.7'))).toEqual({
      code: 'rate_limited',
      message: 'Too many verification codes requested from this IP today',
    });
    await request(fresh(), '198.51.100.8');
    expect(sent).toHaveLength(11);
    // The next UTC day starts a new count.
    advance(24 * 60 * MINUTE);
    await request(fresh(), '198.51.100.7');
    expect(sent).toHaveLength(12);
  });

  it('counts an IPv6 /64 as one client', async () => {
    for (let i = 0; i < 10; i++) {
      await request(fresh(), `2001:db8:7:7::${i + 1}`);
    }
    expect((await refusal(request(fresh(), '2001:db8:7:7:ffff::1'))).message).toBe(
      'Too many verification codes requested from this IP today',
    );
    await request(fresh(), '2001:db8:7:8::1');
  });

  it('lets exactly the cap through when 40 addresses ask at once from one client', async () => {
    const answers = await Promise.allSettled(
      Array.from({ length: 40 }, () => request(fresh(), '192.0.2.40')),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(10);
    expect(sent).toHaveLength(10);
  });

  it('refuses past the daily cap of the whole gateway', async () => {
    limits.dailyCap = 3;
    try {
      for (let i = 0; i < 3; i++) {
        await request(fresh(), `192.0.2.${i + 1}`);
      }
      expect(await refusal(request(fresh(), '192.0.2.99'))).toEqual({
        code: 'rate_limited',
        message: 'Too many verification codes requested today',
      });
    } finally {
      limits.dailyCap = 1000;
    }
  });

  it('refuses a registered address, in any spelling', async () => {
    expect(await refusal(request(' DESK@Example.com'))).toEqual({
      code: 'conflict',
      message: 'Email already registered',
    });
    expect(sent).toEqual([]);
  });

  it('creates the account with the right code at 9:59, funded exactly from the signup owner', async () => {
    deps.signupPolicy.owner = 'signupdesk';
    const before = await balance(desk.id);
    const email = fresh();
    await request(email);
    advance(10 * MINUTE - SECOND);
    const done = await completeSignup(deps, { email, code: lastCode(email).code, ipAddress: '203.0.113.1' });
    expect(done.email).toBe(email);
    expect(await balance(desk.id)).toBe(before - usd(2));
    expect(await balance(done.accountId)).toBe(usd(2));
    const created = await deps.store.accounts.findById(done.accountId);
    expect(created).toMatchObject({ parentId: desk.id, email, name: done.name });
    expect(welcomes()).toEqual([expect.objectContaining({ accountId: done.accountId })]);
    expect(welcomes()[0]?.secretKey).toMatch(/^sk-/);
  });

  it('refuses a code at 10:00 and a token at 10:01, creating nothing', async () => {
    const email = fresh();
    await request(email);
    const { code, token } = lastCode(email);
    advance(10 * MINUTE);
    expect(await refusal(completeSignup(deps, { email, code, ipAddress: '' }))).toEqual({
      code: 'invalid_request',
      message: 'Invalid or expired verification code',
    });
    advance(SECOND);
    expect((await refusal(completeSignup(deps, { token, ipAddress: '' }))).code).toBe('invalid_request');
    expect(welcomes()).toEqual([]);
    expect(
      await deps.store.accounts.findOne({ by: 'email', emailKey: email, scope: root.id }, '.'),
    ).toBeUndefined();
  });

  it('activates by token at 9:59, once; the code of the same signup is then used up too', async () => {
    const email = fresh();
    await request(email);
    const { code, token } = lastCode(email);
    advance(10 * MINUTE - SECOND);
    const done = await completeSignup(deps, { token, ipAddress: '' });
    expect(done.email).toBe(email);
    expect((await refusal(completeSignup(deps, { token, ipAddress: '' }))).code).toBe('invalid_request');
    expect((await refusal(completeSignup(deps, { email, code, ipAddress: '' }))).code).toBe(
      'invalid_request',
    );
    expect(welcomes()).toHaveLength(1);
  });

  it('kills a code after five wrong ones: the right code is refused, a new code works', async () => {
    const email = fresh();
    await request(email);
    const { code } = lastCode(email);
    for (let i = 1; i <= 5; i++) {
      const answer = await refusal(completeSignup(deps, { email, code: wrongCode(code), ipAddress: '' }));
      expect(answer.message).toBe(
        i < 5
          ? 'Wrong verification code'
          : 'Too many wrong codes: this code is no longer valid, request a new one',
      );
    }
    expect((await refusal(completeSignup(deps, { email, code, ipAddress: '' }))).message).toMatch(
      /no longer valid/,
    );
    advance(2 * MINUTE);
    await request(email);
    const done = await completeSignup(deps, { email, code: lastCode(email).code, ipAddress: '' });
    expect(done.email).toBe(email);
  });

  it('caps wrong codes per address per day across codes', async () => {
    const email = fresh();
    for (let round = 0; round < 4; round++) {
      await request(email);
      const { code } = lastCode(email);
      for (let i = 0; i < 5; i++) {
        await refusal(completeSignup(deps, { email, code: wrongCode(code), ipAddress: '' }));
      }
      advance(2 * MINUTE);
    }
    await request(email);
    expect(await refusal(completeSignup(deps, { email, code: lastCode(email).code, ipAddress: '' }))).toEqual(
      {
        code: 'rate_limited',
        message: 'Too many failed verification attempts for this address today',
      },
    );
  });

  it('creates exactly one account when the right code is verified twice at once', async () => {
    const email = fresh();
    await request(email);
    const { code } = lastCode(email);
    const answers = await Promise.allSettled(
      Array.from({ length: 5 }, () => completeSignup(deps, { email, code, ipAddress: '' })),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    expect(welcomes()).toHaveLength(1);
  });

  it('undoes the reservation when the mail cannot be queued: nothing stored, a retry is not made to wait', async () => {
    const email = fresh();
    mailWorks = false;
    expect(await refusal(request(email))).toEqual({
      code: 'unavailable',
      message: 'Sign-up is temporarily unavailable',
    });
    expect(await redis.exists(`${prefix}pending:${email}`)).toBe(0);
    mailWorks = true;
    await request(email);
    expect(sent).toHaveLength(1);
  });

  it('fails closed when Redis cannot be reached: unavailable, no mail, no account', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    down.on('error', () => undefined); // nothing listens on port 1: that is the point
    const offline: SignupDeps = { ...deps, signupStore: new RedisSignupStore(down, prefix) };
    try {
      const email = fresh();
      expect((await refusal(requestSignupCode(offline, { email, ipAddress: '' }))).code).toBe('unavailable');
      expect((await refusal(completeSignup(offline, { email, code: '123456', ipAddress: '' }))).code).toBe(
        'unavailable',
      );
      expect(sent).toEqual([]);
      expect(
        await deps.store.accounts.findOne({ by: 'email', emailKey: email, scope: root.id }, '.'),
      ).toBeUndefined();
    } finally {
      down.disconnect();
    }
  });

  it('stores codes and tokens only as keyed hashes', async () => {
    const email = fresh();
    await request(email);
    const { code, token } = lastCode(email);
    const dump: string[] = [];
    for (const key of await redis.keys(`${prefix}*`)) {
      dump.push(
        key,
        JSON.stringify((await redis.type(key)) === 'hash' ? await redis.hgetall(key) : await redis.get(key)),
      );
    }
    const text = dump.join('\n');
    expect(text).toContain(email);
    expect(text).not.toContain(code);
    expect(text).not.toContain(token);
  });
});
