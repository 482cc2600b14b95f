import { z } from 'zod';
import { AddressList } from './ip.js';
import { parseUsd } from './money.js';
import { parseFallbackPrice } from './pricing/fallback.js';
import { DEFAULT_ADDRESSES, type GrpcServiceName } from './topology.js';

/**
 * Environment parsing, done once at start: every service describes the variables it uses (and
 * only those) as a zod object, and loadConfig fails listing every bad variable at once. Numbers
 * and flags are read exactly (`env.integer`, `env.flag`), never with z.coerce, which reads '' as
 * 0, '0x50' as 80 and any non-empty text as true.
 */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function loadConfig<T extends z.ZodRawShape>(
  shape: T,
  env: NodeJS.ProcessEnv,
): Readonly<z.infer<z.ZodObject<T>>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return Object.freeze(result.data);
}

/** Building blocks shared by every service's env schema. */
export const env = {
  // Digits only: z.coerce.number() would read '' and ' ' as 0 (a random port), '0x50' as 80, '8e3' as 8000.
  port: (fallback: number) =>
    z
      .string()
      .default(String(fallback))
      .refine(
        (value) => /^\d{1,5}$/.test(value) && Number(value) <= 65535,
        'must be a port number from 0 to 65535',
      )
      .transform(Number),
  /** A whole number written in decimal digits, within the range. */
  integer: (fallback: number, range: { min?: number; max?: number } = {}) => {
    const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
    return z
      .string()
      .default(String(fallback))
      .refine(
        (value) => /^-?\d{1,16}$/.test(value) && Number(value) >= min && Number(value) <= max,
        `must be a whole number from ${min} to ${max}`,
      )
      .transform(Number);
  },
  url: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine((value) => URL.canParse(value), 'must be a URL'),
  optionalUrl: () =>
    z
      .string()
      .optional()
      .refine((value) => value === undefined || value === '' || URL.canParse(value), 'must be a URL')
      .transform((value) => (value ? value : undefined)),
  flag: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
      .default(fallback ? 'true' : 'false')
      .transform((value) => ['true', '1', 'yes', 'on'].includes(value)),
  secret: (minLength: number) => z.string().min(minLength, `must be at least ${minLength} characters`),
  address: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine((value) => /^[^\s:]+:\d{1,5}$/.test(value), 'must be host:port'),
  /** host:port, or unset or empty for none. */
  optionalAddress: () =>
    z
      .string()
      .optional()
      .refine((value) => !value || /^[^\s:]+:\d{1,5}$/.test(value), 'must be host:port (or empty for none)')
      .transform((value) => (value ? value : undefined)),
  /** A decimal USD amount, parsed exactly into nano-USD. */
  usdNano: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine((value) => {
        try {
          parseUsd(value);
          return true;
        } catch {
          return false;
        }
      }, 'must be a USD amount with at most 9 decimals')
      .transform((value) => parseUsd(value)),
  /** Addresses and CIDRs separated by spaces or commas (empty: none), read into an AddressList. */
  addressList: () =>
    z
      .string()
      .default('')
      .transform((value, context) => {
        const list = AddressList.parse(value);
        if ('invalid' in list) {
          context.addIssue({ code: 'custom', message: `not addresses or CIDRs: ${list.invalid.join(', ')}` });
          return z.NEVER;
        }
        return list;
      }),
  /** A fallback price (pricing/fallback.ts): JSON or `InputText,OutputText[,Call]`; empty: the default. */
  fallbackPrice: () =>
    z
      .string()
      .default('')
      .transform((value, context) => {
        const price = parseFallbackPrice(value);
        if ('invalid' in price) {
          context.addIssue({ code: 'custom', message: price.invalid });
          return z.NEVER;
        }
        return price;
      }),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `<SERVICE>_ADDR`: one variable serves the server (to bind) and its clients (to dial). */
  serviceAddress: (service: GrpcServiceName | 'proxy') =>
    env
      .address(DEFAULT_ADDRESSES[service])
      .describe(`host:port of the ${service} service: where it listens and where the others dial it.`),
};

/**
 * AI calls are refused once an account's balance is at or below this (docs/decisions.md §1).
 * The edge enforces it; accounts announces the crossing so every edge replica learns at once.
 */
export const apiBalanceEnv = {
  USER_API_BALANCE: env
    .usdNano('0')
    .describe(
      'AI calls are refused at or below this balance, USD (GET /x-conf UserApiBalance, docs/decisions.md §1).',
    ),
};

/**
 * Authentication of API keys on the gateway's public side (`startKeyAuthentication`): the cache of
 * keys, the failed-authentication limit, who names the client, and key last-use times.
 */
export const authEnv = {
  GW_AUTH_CACHE_TTL_MS: env
    .integer(30_000)
    .describe(
      'How long a key stays cached: the backstop for lost invalidation events (docs/decisions.md §8).',
    ),
  GW_AUTH_UNKNOWN_TTL_MS: env
    .integer(5_000)
    .describe('How long an unknown key is remembered as unknown (one lookup per key per this).'),
  GW_AUTH_FAILURES_PER_MINUTE: env
    .integer(60, { min: 1 })
    .describe('Failed authentications one client address may make in a minute (this replica), then 429.'),
  GW_TRUSTED_PROXIES: env
    .addressList()
    .describe(
      'Proxies in front of the gateway whose X-Forwarded-For is believed (addresses and CIDRs, separated by spaces or commas); empty: the socket peer is the client.',
    ),
  GW_KEY_USE_FLUSH_MS: env
    .integer(10_000, { min: 100 })
    .describe('How often key last-use times go to accounts in one batch.'),
};

/** The price of a model priced nowhere (docs/pricing.md), read by whoever charges usage. */
export const fallbackPriceEnv = {
  GW_FALLBACK_PRICE: env
    .fallbackPrice()
    .describe(
      'The price of a model priced nowhere (docs/pricing.md): JSON or `InputText,OutputText[,Call]` (USD per 1M tokens, USD per call); empty: `15,60,0.01`.',
    ),
};

/** Variables every service process reads (METRICS_ADDR: the service lifecycle serves /metrics there). */
export const serviceEnv = {
  LOG_LEVEL: env.logLevel().describe('pino level: fatal, error, warn, info, debug, trace or silent.'),
  GW_INTERNAL_TOKEN: env
    .secret(16)
    .describe(
      'Shared secret every internal gRPC call carries (at least 16 characters; `npm start` generates one).',
    ),
  METRICS_ADDR: env
    .optionalAddress()
    .describe('host:port where the process serves `GET /metrics` (docs/operations.md); unset: none.'),
};

/** A service that publishes or consumes events. */
export const natsEnv = {
  NATS_URL: env.url('nats://127.0.0.1:4222').describe('NATS server (core NATS and JetStream) for events.'),
};

/** A service that keeps shared counters or queues jobs in Redis. */
export const redisEnv = { REDIS_URL: env.url('redis://127.0.0.1:6379').describe('Redis server.') };

/** Variables of a service that owns a Postgres schema. */
export const databaseEnv = {
  DATABASE_URL: env
    .optionalUrl()
    .describe('PostgreSQL URL, needed to serve (`npm start` runs an embedded PostgreSQL and sets it).'),
  GW_DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .describe(
      "The gateway's data folder: `npx gw` admin commands start the embedded PostgreSQL found there.",
    ),
  GW_DB_POOL: env.integer(10, { min: 1, max: 100 }).describe('PostgreSQL connections of the process.'),
};
