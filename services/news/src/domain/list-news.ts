import { reachingPaths } from './news-rules.js';
import type { NewsDeps } from './ports/deps.js';
import type { NewsPage, PageRequest } from './ports/news.js';

export interface AccountNews {
  system: NewsPage;
  user: NewsPage;
  dna: NewsPage;
}

/** The largest page, and the one given when none is asked for. */
export const MAX_PAGE_SIZE = 100;

/**
 * The unexpired news that concern one account, one page of each list: every system item, its own
 * user items, and the DNA items of its path and its ancestors' paths.
 */
export async function listNews(
  deps: NewsDeps,
  input: { accountId: bigint; dna: string; page: PageRequest },
): Promise<AccountNews> {
  const now = deps.clock.now();
  const page = {
    limit: input.page.limit > 0 ? Math.min(input.page.limit, MAX_PAGE_SIZE) : MAX_PAGE_SIZE,
    offset: Math.max(0, input.page.offset),
  };
  const [system, user, dna] = await Promise.all([
    deps.store.listSystem(now, page),
    deps.store.listUser(input.accountId, now, page),
    deps.store.listDna(reachingPaths(input.dna), now, page),
  ]);
  return { system, user, dna };
}
