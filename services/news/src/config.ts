import { databaseEnv, env, grpcServiceEnv, loadConfig, natsEnv } from '@gw/kit';

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...grpcServiceEnv('news'),
  ...natsEnv,
  ...databaseEnv,
  NEWS_MAX_ITEMS_PER_AUTHOR: env
    .integer(50, { min: 1 })
    .describe('Unexpired items one author may keep on one target (docs/decisions.md §20).'),
  NEWS_POSTS_PER_MINUTE: env
    .integer(10, { min: 1 })
    .describe('Items one author may post in a minute, every target together.'),
};

export function loadNewsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
