import { reachingPaths } from './news-rules.js';
import type { NewsDeps, NewsItem } from './ports.js';

export interface AccountNews {
  system: NewsItem[];
  user: NewsItem[];
  dna: NewsItem[];
}

/**
 * The unexpired news that concern one account: every system item, its own user items, and the
 * DNA items of its path and its ancestors' paths.
 */
export async function listNews(
  deps: NewsDeps,
  input: { accountId: bigint; dna: string },
): Promise<AccountNews> {
  const now = deps.clock.now();
  const [system, user, dna] = await Promise.all([
    deps.store.listSystem(now),
    deps.store.listUser(input.accountId, now),
    deps.store.listDna(reachingPaths(input.dna), now),
  ]);
  return { system, user, dna };
}
