import { bigint, boolean, integer, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Drizzle's view of migrations/*.sql (the SQL files are the source of truth). */
export const configSchema = pgSchema('config');

export const ownerConfigs = configSchema.table(
  'owner_configs',
  {
    ownerId: bigint('owner_id', { mode: 'bigint' }).notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.ownerId, table.key] })],
);

export const configVersions = configSchema.table('config_versions', {
  ownerId: bigint('owner_id', { mode: 'bigint' }).primaryKey(),
  version: bigint('version', { mode: 'bigint' }).notNull(),
});

/** One row (id 1): the system-wide settings. */
export const systemSettings = configSchema.table('system_settings', {
  id: integer('id').primaryKey(),
  logEnable: boolean('log_enable').notNull(),
  version: bigint('version', { mode: 'bigint' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});
