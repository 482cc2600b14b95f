import { databaseEnv, env, loadConfig, serviceAddressEnv } from '@gw/kit';

/**
 * The environment of the accounts admin commands: where the database and NATS are. No internal
 * token: a command talks to the database itself, never to a running service.
 */
const shape = {
  ...databaseEnv,
  ...serviceAddressEnv('accounts'),
  NATS_URL: env.url('nats://127.0.0.1:4222'),
};

export function loadCommandConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
