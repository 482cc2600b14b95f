import type { Database } from '@gw/kit';
import { and, desc, eq, gt, inArray, type SQL } from 'drizzle-orm';
import type { NewItem, NewsItem, NewsStore, NewsTarget } from '../domain/ports.js';
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

/** The NewsStore port over drizzle (PostgreSQL or PGlite). */
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
        createdAt: item.createdAt,
        expiresAt: item.expiresAt,
      })
      .returning(itemColumns);
    if (!row) {
      throw new Error('news insert returned no row');
    }
    return row;
  }

  async deleteTarget(target: NewsTarget): Promise<number> {
    const rows = await this.db.delete(newsItems).where(targetWhere(target)).returning({ id: newsItems.id });
    return rows.length;
  }

  private list(where: SQL | undefined, now: Date): Promise<NewsItem[]> {
    return this.db
      .select(itemColumns)
      .from(newsItems)
      .where(and(where, gt(newsItems.expiresAt, now)))
      .orderBy(desc(newsItems.createdAt), desc(newsItems.id));
  }

  listSystem(now: Date) {
    return this.list(eq(newsItems.scope, 'system'), now);
  }

  listUser(accountId: bigint, now: Date) {
    return this.list(and(eq(newsItems.scope, 'user'), eq(newsItems.accountId, accountId)), now);
  }

  async listDna(paths: readonly string[], now: Date) {
    if (paths.length === 0) {
      return [];
    }
    return this.list(and(eq(newsItems.scope, 'dna'), inArray(newsItems.dna, [...paths])), now);
  }
}
