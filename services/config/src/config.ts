import { databaseEnv, grpcServiceEnv, loadConfig, secretKeyEnv } from '@gw/kit';
import { z } from 'zod';

const shape = {
  ...grpcServiceEnv('config'),
  ...databaseEnv,
  /** AES-256-GCM key for EMAIL_PASS at rest: 64 hex digits. */
  GW_SECRET_KEY: secretKeyEnv,
  GW_DB_POOL: z.coerce.number().int().min(1).max(100).default(10),
};

export type Config = ReturnType<typeof loadConfigConfig>;

export function loadConfigConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
