import { apiBalanceEnv, databaseEnv, grpcServiceEnv, loadConfig, mailQueueEnv, natsEnv } from '@gw/kit';
import { z } from 'zod';

const shape = {
  ...grpcServiceEnv('accounts'),
  ...natsEnv,
  ...databaseEnv,
  /** The root key at first start; when unset one is generated and printed once. */
  GW_ROOT_KEY: z.string().min(20, 'must be at least 20 characters').optional(),
  ...apiBalanceEnv,
  ...mailQueueEnv,
};

export type Config = ReturnType<typeof loadAccountsConfig>;

export function loadAccountsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
