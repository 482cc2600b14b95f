import { bigint, bigserial, integer, pgSchema, text, timestamp } from 'drizzle-orm/pg-core';

/** Drizzle's view of migrations/*.sql (the SQL files are the source of truth). */
export const mailerSchema = pgSchema('mailer');

export const deliveries = mailerSchema.table('deliveries', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  jobId: text('job_id').notNull(),
  template: text('template').notNull(),
  recipient: text('recipient').notNull(),
  ownerId: bigint('owner_id', { mode: 'bigint' }),
  attempt: integer('attempt').notNull(),
  status: text('status').$type<'sent' | 'written' | 'retrying' | 'dead'>().notNull(),
  transport: text('transport').notNull(),
  error: text('error').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
