import type { Database } from '@gw/kit';
import { and, count, desc, eq, gt, gte, inArray, isNull, like, or, type SQL } from 'drizzle-orm';
import type {
  Deleter,
  NewItem,
  NewsItem,
  NewsPage,
  NewsStore,
  NewsTarget,
  PageRequest,
} from '../domain/ports/news.js';
import { newsItems } from './schema.js';

const itemColumns = {
  id: newsItems.id,
  title: newsItems.title,
  content: newsItems.content,
  createdAt: newsItems.createdAt,
  expiresAt: newsItems.expiresAt,
};

function targetWhere(target: NewsTarget): SQL | undefined {
  switch (target.scope) {
    case 'system':
      return eq(newsItems.scope, 'system');
    case 'user':
      return and(eq(newsItems.scope, 'user'), eq(newsItems.accountId, target.accountId));
    case 'dna':
      return and(eq(newsItems.scope, 'dna'), eq(newsItems.dna, target.dna));
  }
}

/** The NewsStore port over drizzle (PostgreSQL). */
export class DrizzleNewsStore implements NewsStore {
  constructor(private readonly db: Database) {}

  async insert(item: NewItem): Promise<NewsItem> {
    const [row] = await this.db
      .insert(newsItems)
      .values({
        scope: item.target.scope,
        accountId: item.target.scope === 'user' ? item.target.accountId : null,
        dna: item.target.scope === 'dna' ? item.target.dna : null,
        title: item.title,
        content: item.content,
        authorId: item.authorId,
        authorDna: item.authorDna === '' ? null : item.authorDna,
        createdAt: item.createdAt,
        expiresAt: item.expiresAt,
      })
      .returning(itemColumns);
    if (!row) {
      throw new Error('news insert returned no row');
    }
    return row;
  }

  async deleteTarget(target: NewsTarget, by: Deleter | undefined): Promise<number> {
    // A DNA path holds only digits and dots: no LIKE wildcard to escape.
    const mayDelete =
      by &&
      or(
        like(newsItems.authorDna, `${by.dna}%`),
        and(isNull(newsItems.authorDna), eq(newsItems.authorId, by.id)),
      );
    const rows = await this.db
      .delete(newsItems)
      .where(and(targetWhere(target), mayDelete))
      .returning({ id: newsItems.id });
    return rows.length;
  }

  async countLive(target: NewsTarget, authorId: bigint, now: Date): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(newsItems)
      .where(and(targetWhere(target), eq(newsItems.authorId, authorId), gt(newsItems.expiresAt, now)));
    return row?.n ?? 0;
  }

  async postedSince(authorId: bigint, since: Date): Promise<Date[]> {
    const rows = await this.db
      .select({ createdAt: newsItems.createdAt })
      .from(newsItems)
      .where(and(eq(newsItems.authorId, authorId), gte(newsItems.createdAt, since)))
      .orderBy(newsItems.createdAt);
    return rows.map((row) => row.createdAt);
  }

  private async list(where: SQL | undefined, now: Date, page: PageRequest): Promise<NewsPage> {
    const live = and(where, gt(newsItems.expiresAt, now));
    const [items, [total]] = await Promise.all([
      this.db
        .select(itemColumns)
        .from(newsItems)
        .where(live)
        .orderBy(desc(newsItems.createdAt), desc(newsItems.id))
        .limit(page.limit)
        .offset(page.offset),
      this.db.select({ n: count() }).from(newsItems).where(live),
    ]);
    return { items, total: total?.n ?? 0 };
  }

  listSystem(now: Date, page: PageRequest) {
    return this.list(eq(newsItems.scope, 'system'), now, page);
  }

  listUser(accountId: bigint, now: Date, page: PageRequest) {
    return this.list(and(eq(newsItems.scope, 'user'), eq(newsItems.accountId, accountId)), now, page);
  }

  async listDna(paths: readonly string[], now: Date, page: PageRequest) {
    if (paths.length === 0) {
      return { items: [], total: 0 };
    }
    return this.list(and(eq(newsItems.scope, 'dna'), inArray(newsItems.dna, [...paths])), now, page);
  }
}
