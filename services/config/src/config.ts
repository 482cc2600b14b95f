import { databaseEnv, grpcServiceEnv, loadConfig, natsEnv, secretKeyEnv } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('config'),
  ...natsEnv,
  ...databaseEnv,
  /** AES-256-GCM key for EMAIL_PASS at rest: 64 hex digits. */
  GW_SECRET_KEY: secretKeyEnv,
};

export type Config = ReturnType<typeof loadConfigConfig>;

export function loadConfigConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
