import { grpcServiceEnv, loadConfig } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('news'),
};

export type Config = ReturnType<typeof loadNewsConfig>;

export function loadNewsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
