import { bigint, bigserial, pgSchema, text, timestamp } from 'drizzle-orm/pg-core';

/** Drizzle's view of migrations/*.sql (the SQL files are the source of truth). */
export const newsSchema = pgSchema('news');

export const newsItems = newsSchema.table('news_items', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  scope: text('scope').$type<'system' | 'user' | 'dna'>().notNull(),
  accountId: bigint('account_id', { mode: 'bigint' }),
  dna: text('dna'),
  title: text('title').notNull(),
  content: text('content').notNull(),
  authorId: bigint('author_id', { mode: 'bigint' }).notNull(),
  authorDna: text('author_dna'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});
