/** The three scopes of news; the target of a user item is an account, of a dna item a path. */
export type NewsTarget =
  { scope: 'system' } | { scope: 'user'; accountId: bigint } | { scope: 'dna'; dna: string };

export interface NewsItem {
  id: bigint;
  title: string;
  content: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface NewItem {
  target: NewsTarget;
  title: string;
  content: string;
  authorId: bigint;
  /** The author's DNA path ('' when the caller did not say). */
  authorDna: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Who deletes: only items posted at or below this DNA path, or by this id when no path was kept. */
export interface Deleter {
  dna: string;
  id: bigint;
}

/** One page of a list, newest first. */
export interface PageRequest {
  limit: number;
  offset: number;
}

export interface NewsPage {
  items: NewsItem[];
  /** Every unexpired item of the list. */
  total: number;
}

export interface NewsStore {
  insert(item: NewItem): Promise<NewsItem>;
  /** Removes the target's items (expired or not) the deleter may remove, all when none; returns how many. */
  deleteTarget(target: NewsTarget, by: Deleter | undefined): Promise<number>;
  /** Unexpired items of the target posted by the author at `now`. */
  countLive(target: NewsTarget, authorId: bigint, now: Date): Promise<number>;
  /** When the author's items created at or after `since` were created, oldest first. */
  postedSince(authorId: bigint, since: Date): Promise<Date[]>;
  /** Unexpired items at `now`, newest first, one page. */
  listSystem(now: Date, page: PageRequest): Promise<NewsPage>;
  listUser(accountId: bigint, now: Date, page: PageRequest): Promise<NewsPage>;
  /** Unexpired DNA items whose path is one of `paths`. */
  listDna(paths: readonly string[], now: Date, page: PageRequest): Promise<NewsPage>;
}
