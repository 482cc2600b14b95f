import type { Clock } from '@gw/kit';
import type { NewsStore } from './news.js';

/** How much one author may post (NEWS_MAX_ITEMS_PER_AUTHOR, NEWS_POSTS_PER_MINUTE). */
export interface PostingLimits {
  maxItemsPerAuthor: number;
  postsPerMinute: number;
}

/** One operation-log entry (gw.audit.<action>): a title excerpt and the target, never the content. */
export type NewsAudit = (entry: {
  action: 'create_news' | 'delete_news';
  operatorId: bigint;
  targetId: bigint;
  details: string;
  ipAddress: string;
}) => void;

export interface NewsDeps {
  store: NewsStore;
  clock: Clock;
  limits: PostingLimits;
  audit: NewsAudit;
}
