import { databaseEnv, DEFAULT_ADDRESSES, env, grpcServiceEnv, loadConfig, secretKeyEnv } from '@gw/kit';
import { z } from 'zod';

const shape = {
  ...grpcServiceEnv('keypool'),
  ...databaseEnv,
  /** AES-256-GCM key for provider secrets at rest: 64 hex digits. */
  GW_SECRET_KEY: secretKeyEnv,
  /** The gateway's public URL: a Provider pointing at its host is refused. */
  GW_PUBLIC_URL: env.optionalUrl(),
  /** Extra host names or addresses that are the gateway itself (comma-separated). */
  GW_SELF_HOSTS: z.string().default(''),
  /** Redis key prefix of the shared key state (the proxies use the same variable and layout). */
  GW_KEY_STATE_PREFIX: z.string().max(64).default('gw:keystate:'),
  /** The config service, for the LEVEL_MAPPER auto-completion after a key is added. */
  CONFIG_ADDR: env.address(DEFAULT_ADDRESSES.config),
  GW_DB_POOL: z.coerce.number().int().min(1).max(100).default(10),
};

export type Config = ReturnType<typeof loadKeypoolConfig>;

export function loadKeypoolConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
