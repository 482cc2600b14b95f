import {
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  natsEnv,
  redisEnv,
  secretKeyEnv,
  selfAddressEnv,
  tenantPrivateEnv,
} from '@gw/kit';
import { z } from 'zod';

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...grpcServiceEnv('keypool'),
  ...natsEnv,
  ...redisEnv,
  ...databaseEnv,
  // The gateway's own endpoints, refused as Provider for every pool (docs/decisions.md §7);
  // CONFIG_ADDR is also the config service this one dials.
  ...selfAddressEnv,
  ...tenantPrivateEnv,
  GW_SECRET_KEY: secretKeyEnv.describe('AES-256-GCM key for provider secrets at rest: 64 hex digits.'),
  GW_KEY_STATE_PREFIX: z
    .string()
    .max(64)
    .default('gw:keystate:')
    .describe('Redis key prefix of the shared key state (the proxies use the same variable and layout).'),
};

export function loadKeypoolConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
