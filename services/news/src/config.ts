import { databaseEnv, grpcServiceEnv, loadConfig } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('news'),
  ...databaseEnv,
};

export function loadNewsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
