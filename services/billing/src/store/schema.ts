import { bigint, boolean, date, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Drizzle's view of migrations/*.sql (the SQL files are the source of truth). */
export const billingSchema = pgSchema('billing');

const count = (name: string) => bigint(name, { mode: 'bigint' }).notNull();

export const usageRecords = billingSchema.table('usage_records', {
  eventId: text('event_id').primaryKey(),
  accountId: count('account_id'),
  ownerId: count('owner_id'),
  model: text('model').notNull(),
  day: date('day', { mode: 'string' }).notNull(),
  at: timestamp('at', { withTimezone: true }).notNull(),
  promptTokens: count('prompt_tokens'),
  completionTokens: count('completion_tokens'),
  cachedTokens: count('cached_tokens'),
  costNano: count('cost_nano'),
  fallbackPrice: boolean('fallback_price').notNull(),
  partial: boolean('partial').notNull(),
  estimated: boolean('estimated').notNull(),
  recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull(),
});

export const usageRollups = billingSchema.table(
  'usage_rollups',
  {
    accountId: count('account_id'),
    day: date('day', { mode: 'string' }).notNull(),
    model: text('model').notNull(),
    requests: count('requests'),
    promptTokens: count('prompt_tokens'),
    completionTokens: count('completion_tokens'),
    cachedTokens: count('cached_tokens'),
    costNano: count('cost_nano'),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.day, table.model] })],
);
