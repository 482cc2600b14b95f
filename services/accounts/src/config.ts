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

const shape = {
  ...grpcServiceEnv('accounts'),
  ...natsEnv,
  ...databaseEnv,
  /** The root key at first start; when unset one is generated and printed once. */
  GW_ROOT_KEY: z.string().min(20, 'must be at least 20 characters').optional(),
  ...apiBalanceEnv,
  ...mailQueueEnv,
  /** Seals the secrets of signup mail jobs and keys the hashes of signup codes and tokens. */
  GW_SECRET_KEY: secretKeyEnv,
  /**
   * single: root is the one owner and everything is its tree; multi: root's subaccounts are
   * owners, each with its own tree, pool and configuration (docs/adr/0007-multi-tenant-owners.md).
   */
  GW_TENANCY: z.enum(['single', 'multi']).default('single'),
  /** Id or name of the account signups are created under (root; in multi-tenant mode an owner's account). */
  SIGN_OWNER: z.string().min(1).default('root'),
  /** Credit each signup gets from SIGN_OWNER's balance, USD (at least the 2 USD of any creation). */
  SIGN_CREDIT: env
    .usdNano('2')
    .refine((nano) => nano >= 2_000_000_000n, 'must be at least 2 (USD): the minimum of any creation'),
  /** Anti-abuse caps of signup (per IP and per day); the per-address wait always applies. */
  SAFE_ENABLE: env.flag(true),
  /** Codes per client (IPv4 address or IPv6 /64) per UTC day, with SAFE_ENABLE. */
  SIGN_IP_DAILY_CAP: count(10),
  /** Codes per UTC day for the whole gateway, with SAFE_ENABLE. */
  SIGN_DAILY_CAP: count(1000),
  /** Redis key prefix of signup state. */
  GW_SIGNUP_PREFIX: z.string().max(64).default('gw:signup:'),
};

export function loadAccountsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
