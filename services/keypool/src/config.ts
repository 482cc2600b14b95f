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

const shape = {
  ...grpcServiceEnv('keypool'),
  ...natsEnv,
  ...redisEnv,
  ...databaseEnv,
  /**
   * The gateway's own endpoints, refused as Provider for every pool (docs/decisions.md §7):
   * every <SERVICE>_ADDR (CONFIG_ADDR is also the config service this one dials), GW_EDGE_PORT,
   * GW_PUBLIC_URL and GW_SELF_HOSTS.
   */
  ...selfAddressEnv,
  /** Loopback and private ranges tenant owners may use as upstream or mail server (docs/decisions.md §7). */
  ...tenantPrivateEnv,
  /** AES-256-GCM key for provider secrets at rest: 64 hex digits. */
  GW_SECRET_KEY: secretKeyEnv,
  /** Redis key prefix of the shared key state (the proxies use the same variable and layout). */
  GW_KEY_STATE_PREFIX: z.string().max(64).default('gw:keystate:'),
};

export function loadKeypoolConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
