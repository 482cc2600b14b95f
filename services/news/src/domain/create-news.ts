import { checkTarget, checkText, lifetimeDays } from './news-rules.js';
import type { NewsDeps, NewsItem, NewsTarget } from './ports.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CreateNewsInput {
  target: NewsTarget;
  title: string;
  content: string;
  days: number | undefined;
  authorId: bigint;
}

/** Stores one item for an already authorized target, expiring after its days. */
export async function createNews(deps: NewsDeps, input: CreateNewsInput): Promise<NewsItem> {
  const target = checkTarget(input.target);
  const text = checkText(input.title, input.content);
  const days = lifetimeDays(target, input.days);
  const now = deps.clock.now();
  return deps.store.insert({
    target,
    ...text,
    authorId: input.authorId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + days * DAY_MS),
  });
}
