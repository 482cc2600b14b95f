import {
  addressVariable,
  apiBalanceEnv,
  natsEnv,
  redisEnv,
  serviceEnv,
  DEFAULT_ADDRESSES,
  env,
  GRPC_SERVICES,
  loadConfig,
} from '@gw/kit';
import { z } from 'zod';

const addresses = Object.fromEntries(
  [...GRPC_SERVICES, 'proxy' as const].map((service) => [
    addressVariable(service),
    env.address(DEFAULT_ADDRESSES[service]),
  ]),
) as Record<`${Uppercase<(typeof GRPC_SERVICES)[number] | 'proxy'>}_ADDR`, ReturnType<typeof env.address>>;

const shape = {
  ...serviceEnv,
  ...natsEnv,
  ...redisEnv,
  ...addresses,
  PORT: env.port(8080),
  HOST: z.string().default('0.0.0.0'),
  /** Self-signup: the /x-sign group answers 404 while off. */
  SIGN_ENABLE: env.flag(false),
  /** Shown by GET /dashboard/conf (the caps themselves are applied by accounts). */
  SAFE_ENABLE: env.flag(true),
  /** Largest JSON body accepted on management routes. */
  GW_BODY_LIMIT: z.string().default('1mb'),
  /** Backstop for lost invalidation events (docs/decisions.md §8). */
  GW_AUTH_CACHE_TTL_MS: env.integer(30_000),
  /** How long an unknown key is remembered as unknown (one lookup per key per this). */
  GW_AUTH_UNKNOWN_TTL_MS: env.integer(5_000),
  /** Failed authentications one client address may make in a minute (this replica), then 429. */
  GW_AUTH_FAILURES_PER_MINUTE: env.integer(60, { min: 1 }),
  /**
   * Proxies in front of the edge whose X-Forwarded-For is believed (addresses and CIDRs,
   * separated by spaces or commas); empty: the socket peer is the client.
   */
  GW_TRUSTED_PROXIES: env.addressList(),
  /** How often key last-use times go to accounts in one batch. */
  GW_KEY_USE_FLUSH_MS: env.integer(10_000, { min: 100 }),
  /** The built console (packages/console/dist); empty: beside the edge's package, as its image holds it. */
  GW_CONSOLE_DIR: z.string().default(''),
  /** A console session unused this long ends (docs/adr/0008-console-sessions.md). */
  GW_CONSOLE_IDLE_SECONDS: env.integer(1800, { min: 1 }),
  /** A console session ends this long after sign-in, however busy. */
  GW_CONSOLE_MAX_AGE_SECONDS: env.integer(43_200, { min: 1 }),
  /** Redis key prefix of console sessions (every edge replica shares them). */
  GW_CONSOLE_SESSION_PREFIX: z.string().max(64).default('gw:console:'),
  /** USD a user must keep to use the Manage console (shown by GET /x-conf as UserMinBalance). */
  USER_MIN_BALANCE: env.usdNano('0'),
  /** AI calls are refused at or below this balance, USD (GET /x-conf UserApiBalance, docs/decisions.md §1). */
  ...apiBalanceEnv,
};

export type Config = ReturnType<typeof loadEdgeConfig>;

export function loadEdgeConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
