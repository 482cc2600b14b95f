import { grpcServiceEnv, loadConfig } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('mailer'),
};

export type Config = ReturnType<typeof loadMailerConfig>;

export function loadMailerConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
