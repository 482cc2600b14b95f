import { AppError, usd, type DatabaseHandle } from '@gw/kit';
import { createTestDatabase, type TestDatabase } from '@gw/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { bootstrapRoot } from '../src/domain/bootstrap-root.js';
import { createAccount } from '../src/domain/create-account.js';
import type { AccountRecord } from '../src/domain/model.js';
import { requestSignupCode } from '../src/domain/request-signup-code.js';
import type { SignupDeps, SignupLimits } from '../src/domain/ports/signup.js';
import {
  MAX_DAILY_FAILURES,
  MAX_WRONG_CODES,
  SIGNUP_COOLDOWN_MS,
  SIGNUP_LIFETIME_MS,
  signupHasher,
} from '../src/domain/signup-rules.js';
import { DrizzleAccountsStore } from '../src/store/accounts-store.js';
import { RedisSignupStore } from '../src/store/redis-signup-store.js';
import { openAccountsDatabase } from './accounts-helpers.js';

/**
 * The signup state table against real Redis and PostgreSQL, with the service's clock injected so
 * the 2-minute and 10-minute boundaries are reached without waiting. Mails are the SignupMail
 * port, recorded (the end-to-end test sends them through the real mailer).
 */
export interface Sent {
  kind: 'verification' | 'welcome';
  email?: string;
  code?: string;
  token?: string;
  accountId?: bigint;
  secretKey?: string;
}

export const MINUTE = 60_000;
export const SECOND = 1_000;

export interface SignupState {
  redis: Redis;
  deps: SignupDeps;
  root: AccountRecord;
  /** A funded account under root, the signup owner when a test names it. */
  desk: AccountRecord;
  /** The mails sent since the test began. */
  sent: Sent[];
  /** Whether the recorded mail port accepts a verification mail. */
  mailWorks: boolean;
  limits: SignupLimits;
  /** The Redis key prefix of this file's signup store. */
  prefix: string;
  fresh: () => string;
  /** Moves the injected clock forward. */
  advance: (ms: number) => void;
  request: (email: string, ip?: string) => Promise<void>;
  /** The code and message of the AppError `work` is refused with. */
  refusal: (work: Promise<unknown>) => Promise<{ code: string; message: string }>;
  /** The code and token of the last verification mail to `email`. */
  lastCode: (email: string) => { code: string; token: string };
  wrongCode: (code: string) => string;
  /** What an account's live lots hold, in nano-USD. */
  balance: (id: bigint) => Promise<bigint>;
  welcomes: () => Sent[];
}

/**
 * Opens a fresh database and a Redis prefix for the calling test file (in `beforeAll`, removed in
 * `afterAll`) and answers the signup domain over them; each test starts on a new day with no mail
 * sent and the default limits and owner.
 */
export function useSignupState(): SignupState {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let now = Date.parse('2030-06-15T10:00:00Z');
  let counter = 0;
  const world = {
    sent: [],
    mailWorks: true,
    prefix: `gw-test-${Date.now().toString(36)}:signup:`,
    limits: {
      lifetimeMs: SIGNUP_LIFETIME_MS,
      cooldownMs: SIGNUP_COOLDOWN_MS,
      maxWrongCodes: MAX_WRONG_CODES,
      maxDailyFailures: MAX_DAILY_FAILURES,
      safe: true,
      ipDailyCap: 10,
      dailyCap: 1000,
    },
    fresh: () => `person${Date.now().toString(36)}${++counter}@example.com`,
    advance: (ms: number) => {
      now += ms;
    },
    request: (email: string, ip = '203.0.113.1') => requestSignupCode(world.deps, { email, ipAddress: ip }),
    refusal: async (work: Promise<unknown>): Promise<{ code: string; message: string }> => {
      try {
        await work;
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return { code: (error as AppError).code, message: (error as AppError).message };
      }
      throw new Error('expected a refusal');
    },
    lastCode: (email: string) => {
      const mail = world.sent
        .filter((entry) => entry.kind === 'verification' && entry.email === email)
        .at(-1);
      if (!mail?.code || !mail.token) {
        throw new Error(`no verification mail for ${email}`);
      }
      return { code: mail.code, token: mail.token };
    },
    wrongCode: (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0'),
    balance: async (id: bigint) =>
      (await world.deps.store.lots.live([id], new Date(now))).reduce(
        (sum, lot) => sum + lot.remainingNano,
        0n,
      ),
    welcomes: () => world.sent.filter((entry) => entry.kind === 'welcome'),
  } as Omit<SignupState, 'redis' | 'deps' | 'root' | 'desk'> as SignupState;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openAccountsDatabase(database);
    world.redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    world.deps = {
      store: new DrizzleAccountsStore(handle.db),
      events: { accountChanged: () => undefined, audit: () => undefined },
      clock: { now: () => new Date(now) },
      alerts: { softLimitReached: () => Promise.resolve(), billingNotice: () => Promise.resolve() },
      policy: { apiBalanceFloorNano: 0n, tenancy: 'single' },
      signupStore: new RedisSignupStore(world.redis, world.prefix),
      signupMail: {
        sendVerification: (input) => {
          if (world.mailWorks) {
            world.sent.push({ kind: 'verification', ...input });
          }
          return Promise.resolve(world.mailWorks);
        },
        sendWelcome: (input) => {
          world.sent.push({ kind: 'welcome', ...input });
          return Promise.resolve(true);
        },
      },
      signupPolicy: {
        owner: 'root',
        creditNano: usd(2),
        limits: world.limits,
        hash: signupHasher('ab'.repeat(32)),
      },
    };
    world.root = (await bootstrapRoot(world.deps, `sk-root-${'x'.repeat(30)}`)).root;
    const created = await createAccount(world.deps, {
      callerId: world.root.id,
      fields: { name: 'signupdesk', email: 'desk@example.com' },
      creditGrantedNano: usd(10),
      days: undefined,
      idempotencyKey: '',
    });
    world.desk = created.account;
  });

  afterAll(async () => {
    const keys = await world.redis.keys(`${world.prefix}*`);
    if (keys.length > 0) {
      await world.redis.del(...keys);
    }
    world.redis.disconnect();
    await handle.close();
    await database.drop();
  });

  beforeEach(async () => {
    world.sent = [];
    world.mailWorks = true;
    world.limits.safe = true;
    world.deps.signupPolicy.owner = 'root';
    // Each test starts a new day: the daily counters of one test never reach into the next.
    world.advance(24 * 60 * MINUTE);
    const keys = await world.redis.keys(`${world.prefix}*`);
    if (keys.length > 0) {
      await world.redis.del(...keys);
    }
  });

  return world;
}
