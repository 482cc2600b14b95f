import {
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  natsEnv,
  secretKeyEnv,
  selfAddressEnv,
  tenantPrivateEnv,
} from '@gw/kit';

const shape = {
  ...grpcServiceEnv('config'),
  ...natsEnv,
  ...databaseEnv,
  /** The gateway's own endpoints (every <SERVICE>_ADDR, GW_EDGE_PORT, GW_PUBLIC_URL, GW_SELF_HOSTS): never a mail server. */
  ...selfAddressEnv,
  /** Loopback and private ranges tenant owners may use as upstream or mail server (docs/decisions.md §7). */
  ...tenantPrivateEnv,
  /** AES-256-GCM key for EMAIL_PASS at rest: 64 hex digits. */
  GW_SECRET_KEY: secretKeyEnv,
};

export function loadConfigServiceConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
