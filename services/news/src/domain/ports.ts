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
  createdAt: Date;
  expiresAt: Date;
}

export interface NewsStore {
  insert(item: NewItem): Promise<NewsItem>;
  /** Removes every item of the target, expired or not; returns how many. */
  deleteTarget(target: NewsTarget): Promise<number>;
  /** Unexpired items at `now`, newest first. */
  listSystem(now: Date): Promise<NewsItem[]>;
  listUser(accountId: bigint, now: Date): Promise<NewsItem[]>;
  /** Unexpired DNA items whose path is one of `paths`. */
  listDna(paths: readonly string[], now: Date): Promise<NewsItem[]>;
}

export interface Clock {
  now(): Date;
}

export interface NewsDeps {
  store: NewsStore;
  clock: Clock;
}
