import {
  addressVariable,
  apiBalanceEnv,
  authEnv,
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
  ...authEnv,
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
