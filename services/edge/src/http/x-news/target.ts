import { accounts, news } from '@gw/proto';
import type { EdgeDeps } from '../../deps.js';

/**
 * The target of /x-news/{target}, resolved through accounts with ancestor permission:
 * - a DNA path (`.1.5.`): DNA news for every account at or under it; the caller may name its own
 *   path or one below it;
 * - a user id or username: user news for that account, which the caller must manage (be an
 *   ancestor of).
 * A target outside the caller's tree is 403, one that exists nowhere 404 (docs/decisions.md §9).
 */
export async function resolveNewsTarget(
  deps: EdgeDeps,
  caller: accounts.Account,
  raw: string,
): Promise<news.NewsTarget> {
  const isDna = raw.trim().startsWith('.');
  const { account } = await deps.accounts.getAccount({
    callerId: caller.id,
    identifier: raw,
    reach: isDna ? accounts.Reach.REACH_SELF_OR_DESCENDANTS : accounts.Reach.REACH_DESCENDANTS,
  });
  if (!account) {
    throw new Error('accounts answered without an account');
  }
  return isDna
    ? { scope: news.NewsScope.NEWS_SCOPE_DNA, accountId: 0n, dna: account.dna }
    : { scope: news.NewsScope.NEWS_SCOPE_USER, accountId: account.id, dna: '' };
}

export const SYSTEM_TARGET: news.NewsTarget = {
  scope: news.NewsScope.NEWS_SCOPE_SYSTEM,
  accountId: 0n,
  dna: '',
};

/** How an answer names the scope. */
export function scopeName(target: news.NewsTarget): 'system' | 'user' | 'dna' {
  return target.scope === news.NewsScope.NEWS_SCOPE_USER
    ? 'user'
    : target.scope === news.NewsScope.NEWS_SCOPE_DNA
      ? 'dna'
      : 'system';
}
