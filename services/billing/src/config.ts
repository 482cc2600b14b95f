import { grpcServiceEnv, loadConfig, natsEnv } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('billing'),
  ...natsEnv,
};

export type Config = ReturnType<typeof loadBillingConfig>;

export function loadBillingConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
