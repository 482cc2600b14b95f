import {
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  natsEnv,
  secretKeyEnv,
  selfAddressEnv,
  tenantPrivateEnv,
} from '@gw/kit';

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...grpcServiceEnv('config'),
  ...natsEnv,
  ...databaseEnv,
  // The gateway's own endpoints: never a mail server.
  ...selfAddressEnv,
  ...tenantPrivateEnv,
  GW_SECRET_KEY: secretKeyEnv.describe('AES-256-GCM key for EMAIL_PASS at rest: 64 hex digits.'),
};

export function loadConfigServiceConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
