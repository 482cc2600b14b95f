import { checkTarget } from './news-rules.js';
import type { Deleter, NewsDeps, NewsTarget } from './ports.js';

/**
 * Removes the items of one target (all system news for the system target) that the caller or an
 * account below it posted: a descendant never removes what an ancestor told it
 * (docs/decisions.md §20). Without a deleter (a caller from before the rule) every item goes.
 */
export async function deleteNews(
  deps: NewsDeps,
  target: NewsTarget,
  by: Deleter | undefined,
): Promise<number> {
  return deps.store.deleteTarget(checkTarget(target), by);
}
