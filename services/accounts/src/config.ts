import {
  apiBalanceEnv,
  databaseEnv,
  env,
  grpcServiceEnv,
  loadConfig,
  mailQueueEnv,
  natsEnv,
  secretKeyEnv,
} from '@gw/kit';
import { z } from 'zod';

const count = (fallback: number) => env.integer(fallback, { min: 1, max: 1_000_000_000 });

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...grpcServiceEnv('accounts'),
  ...natsEnv,
  ...databaseEnv,
  GW_ROOT_KEY: z
    .string()
    .min(20, 'must be at least 20 characters')
    .optional()
    .describe('The root key at first start; unset: one is generated and printed once.'),
  ...apiBalanceEnv,
  ...mailQueueEnv,
  GW_SECRET_KEY: secretKeyEnv.describe(
    'Seals the secrets of signup mail jobs and keys the hashes of signup codes and tokens: 64 hex digits.',
  ),
  GW_TENANCY: z
    .enum(['single', 'multi'])
    .default('single')
    .describe(
      "single: root is the one owner; multi: root's subaccounts are owners, each with its own tree, pool and configuration (docs/adr/0007-multi-tenant-owners.md).",
    ),
  SIGN_OWNER: z
    .string()
    .min(1)
    .default('root')
    .describe(
      'Id, DNA path or name of the account signups are created under (multi-tenant: an account of a tenant; a name is looked up among the owners).',
    ),
  SIGN_CREDIT: env
    .usdNano('2')
    .refine((nano) => nano >= 2_000_000_000n, 'must be at least 2 (USD): the minimum of any creation')
    .describe("Credit each signup gets from SIGN_OWNER's balance, USD (at least the 2 USD of any creation)."),
  SAFE_ENABLE: env
    .flag(true)
    .describe('Anti-abuse caps of signup (per IP and per day); the per-address wait always applies.'),
  SIGN_IP_DAILY_CAP: count(10).describe(
    'Codes per client (IPv4 address or IPv6 /64) per UTC day, with SAFE_ENABLE.',
  ),
  SIGN_DAILY_CAP: count(1000).describe('Codes per UTC day for the whole gateway, with SAFE_ENABLE.'),
  GW_SIGNUP_PREFIX: z.string().max(64).default('gw:signup:').describe('Redis key prefix of signup state.'),
};

export function loadAccountsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
