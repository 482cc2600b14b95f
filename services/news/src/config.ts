import { databaseEnv, env, grpcServiceEnv, loadConfig, natsEnv } from '@gw/kit';

const shape = {
  ...grpcServiceEnv('news'),
  ...natsEnv,
  ...databaseEnv,
  /** Unexpired items one author may keep on one target (docs/decisions.md §20). */
  NEWS_MAX_ITEMS_PER_AUTHOR: env.integer(50, { min: 1 }),
  /** Items one author may post in a minute, every target together. */
  NEWS_POSTS_PER_MINUTE: env.integer(10, { min: 1 }),
};

export function loadNewsConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
