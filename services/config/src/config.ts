import { databaseEnv, grpcServiceEnv, loadConfig, secretKeyEnv } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('config'),
  ...databaseEnv,
  /** AES-256-GCM key for EMAIL_PASS at rest: 64 hex digits. */
  GW_SECRET_KEY: secretKeyEnv,
};

export type Config = ReturnType<typeof loadConfigConfig>;

export function loadConfigConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
