import {
  addressVariable,
  apiBalanceEnv,
  natsEnv,
  redisEnv,
  serviceEnv,
  env,
  GRPC_SERVICES,
  loadConfig,
} from '@gw/kit';
import { z } from 'zod';

const addresses = Object.fromEntries(
  [...GRPC_SERVICES, 'proxy' as const].map((service) => [
    addressVariable(service),
    env.serviceAddress(service),
  ]),
) as Record<
  `${Uppercase<(typeof GRPC_SERVICES)[number] | 'proxy'>}_ADDR`,
  ReturnType<typeof env.serviceAddress>
>;

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...serviceEnv,
  ...natsEnv,
  ...redisEnv,
  ...addresses,
  PORT: env.port(8080).describe('The HTTP port of the API and the console.'),
  HOST: z.string().default('0.0.0.0').describe('The address the HTTP server binds.'),
  SIGN_ENABLE: env.flag(false).describe('Self-signup: the /x-sign group answers 404 while off.'),
  SAFE_ENABLE: env
    .flag(true)
    .describe('Shown by GET /dashboard/conf (the signup caps themselves are applied by accounts).'),
  GW_BODY_LIMIT: z.string().default('1mb').describe('Largest JSON body accepted on management routes.'),
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
      'Proxies in front of the edge whose X-Forwarded-For is believed (addresses and CIDRs, separated by spaces or commas); empty: the socket peer is the client.',
    ),
  GW_KEY_USE_FLUSH_MS: env
    .integer(10_000, { min: 100 })
    .describe('How often key last-use times go to accounts in one batch.'),
  GW_CONSOLE_DIR: z
    .string()
    .default('')
    .describe(
      "The built console (packages/console/dist); empty: beside the edge's package, as its image holds it.",
    ),
  GW_CONSOLE_IDLE_SECONDS: env
    .integer(1800, { min: 1 })
    .describe('A console session unused this long ends (docs/adr/0008-console-sessions.md).'),
  GW_CONSOLE_MAX_AGE_SECONDS: env
    .integer(43_200, { min: 1 })
    .describe('A console session ends this long after sign-in, however busy.'),
  GW_CONSOLE_SESSION_PREFIX: z
    .string()
    .max(64)
    .default('gw:console:')
    .describe('Redis key prefix of console sessions (every edge replica shares them).'),
  USER_MIN_BALANCE: env
    .usdNano('0')
    .describe('USD a user must keep to use the Manage console (shown by GET /x-conf as UserMinBalance).'),
  ...apiBalanceEnv,
};

export type Config = ReturnType<typeof loadEdgeConfig>;

export function loadEdgeConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
