import { grpcServiceEnv, loadConfig, natsEnv } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('news'),
  ...natsEnv,
};

export type Config = ReturnType<typeof loadNewsConfig>;

export function loadNewsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
