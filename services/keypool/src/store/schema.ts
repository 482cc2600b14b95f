import { bigint, bigserial, boolean, integer, jsonb, pgSchema, text, timestamp } from 'drizzle-orm/pg-core';

/** Drizzle's view of migrations/*.sql (the SQL files are the source of truth). */
export const keypoolSchema = pgSchema('keypool');

export const providerKeys = keypoolSchema.table('provider_keys', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  ownerId: bigint('owner_id', { mode: 'bigint' }).notNull(),
  name: text('name').notNull(),
  level: integer('level').notNull(),
  provider: text('provider').notNull(),
  providerHost: text('provider_host').notNull(),
  secretEnc: text('secret_enc').notNull(),
  secretLast4: text('secret_last4').notNull(),
  status: boolean('status').notNull(),
  providerType: text('provider_type').notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  configSecretsEnc: text('config_secrets_enc').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});

export const poolVersions = keypoolSchema.table('pool_versions', {
  ownerId: bigint('owner_id', { mode: 'bigint' }).primaryKey(),
  version: bigint('version', { mode: 'bigint' }).notNull(),
  ownerIsRoot: boolean('owner_is_root').notNull(),
});
