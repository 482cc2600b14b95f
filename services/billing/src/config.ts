import { grpcServiceEnv, loadConfig } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('billing'),
};

export type Config = ReturnType<typeof loadBillingConfig>;

export function loadBillingConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
