import { grpcServiceEnv, loadConfig, natsEnv } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('mailer'),
  ...natsEnv,
};

export type Config = ReturnType<typeof loadMailerConfig>;

export function loadMailerConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
