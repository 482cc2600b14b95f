import { checkTarget, describeTarget } from './news-rules.js';
import type { NewsDeps } from './ports/deps.js';
import type { Deleter, NewsTarget } from './ports/news.js';

/**
 * Removes the items of one target (all system news for the system target) that the caller or an
 * account below it posted: a descendant never removes what an ancestor told it
 * (docs/decisions.md §20). Without a deleter (a caller from before the rule) every item goes.
 * Logged as delete_news (target and count; target id 0, as the entry may name several items).
 */
export async function deleteNews(
  deps: NewsDeps,
  target: NewsTarget,
  by: Deleter | undefined,
  operator: { operatorId: bigint; ipAddress: string },
): Promise<number> {
  const checked = checkTarget(target);
  const deleted = await deps.store.deleteTarget(checked, by);
  deps.audit({
    action: 'delete_news',
    operatorId: operator.operatorId,
    targetId: 0n,
    details: `deleted ${String(deleted)} item${deleted === 1 ? '' : 's'} of ${describeTarget(checked)}`,
    ipAddress: operator.ipAddress,
  });
  return deleted;
}
