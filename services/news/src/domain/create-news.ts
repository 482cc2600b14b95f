import { AppError, ErrorCode, excerpt } from '@gw/kit';
import { checkTarget, checkText, describeTarget, lifetimeDays } from './news-rules.js';
import type { NewsDeps } from './ports/deps.js';
import type { NewsItem, NewsTarget } from './ports/news.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60_000;

export interface CreateNewsInput {
  target: NewsTarget;
  title: string;
  content: string;
  days: number | undefined;
  authorId: bigint;
  authorDna: string;
  /** The author's client address, for the operation log. */
  ipAddress: string;
}

/**
 * Posting is bounded per author (docs/decisions.md §20): NEWS_POSTS_PER_MINUTE posts a minute
 * over every target (429 with Retry-After), and NEWS_MAX_ITEMS_PER_AUTHOR unexpired items on one
 * target (429 until some expire or are deleted). Counted before the insert: concurrent posts of
 * one author may pass the bound by the number in flight.
 */
async function assertMayPost(deps: NewsDeps, input: CreateNewsInput, target: NewsTarget, now: Date) {
  const recent = await deps.store.postedSince(input.authorId, new Date(now.getTime() - MINUTE_MS));
  if (recent.length >= deps.limits.postsPerMinute) {
    const oldest = recent[recent.length - deps.limits.postsPerMinute] ?? now;
    throw new AppError(
      ErrorCode.RateLimited,
      `at most ${deps.limits.postsPerMinute} news items a minute may be posted`,
      { retryAfterSeconds: Math.max(1, Math.ceil((oldest.getTime() + MINUTE_MS - now.getTime()) / 1000)) },
    );
  }
  const live = await deps.store.countLive(target, input.authorId, now);
  if (live >= deps.limits.maxItemsPerAuthor) {
    throw new AppError(
      ErrorCode.QuotaExceeded,
      `at most ${deps.limits.maxItemsPerAuthor} unexpired items of yours may stand on one target: delete some first`,
    );
  }
}

/**
 * Stores one item for an already authorized target, expiring after its days, and logs it as
 * create_news (the item's id, its target and the start of its title).
 */
export async function createNews(deps: NewsDeps, input: CreateNewsInput): Promise<NewsItem> {
  const target = checkTarget(input.target);
  const text = checkText(input.title, input.content);
  const days = lifetimeDays(target, input.days);
  const now = deps.clock.now();
  await assertMayPost(deps, input, target, now);
  const item = await deps.store.insert({
    target,
    ...text,
    authorId: input.authorId,
    authorDna: input.authorDna,
    createdAt: now,
    expiresAt: new Date(now.getTime() + days * DAY_MS),
  });
  deps.audit({
    action: 'create_news',
    operatorId: input.authorId,
    targetId: item.id,
    details: `posted ${describeTarget(target)}: "${excerpt(item.title, 40)}" for ${String(days)} days`,
    ipAddress: input.ipAddress,
  });
  return item;
}
