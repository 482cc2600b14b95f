import {
  bigint,
  bigserial,
  boolean,
  integer,
  jsonb,
  numeric,
  pgSchema,
  text,
  timestamp,
  date,
} from 'drizzle-orm/pg-core';

import type { AuditTargetType } from '@gw/kit';

/** Drizzle's view of migrations/*.sql (the SQL files are the source of truth). */
export const accountsSchema = pgSchema('accounts');

const nano = (name: string) => bigint(name, { mode: 'bigint' });

export const accounts = accountsSchema.table('accounts', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  parentId: nano('parent_id'),
  ownerId: nano('owner_id'),
  dna: text('dna').notNull(),
  name: text('name').notNull(),
  nameKey: text('name_key').notNull(),
  email: text('email').notNull(),
  emailKey: text('email_key').notNull(),
  alias: text('alias').notNull(),
  billingEmail: text('billing_email').notNull(),
  qrCode: text('qr_code').notNull(),
  isOwner: boolean('is_owner').notNull(),
  isRoot: boolean('is_root').notNull(),
  level: integer('level').notNull(),
  gear: integer('gear').notNull(),
  role: integer('role').notNull(),
  tier: integer('tier').notNull(),
  factor: numeric('factor', { mode: 'number' }).notNull(),
  rates: numeric('rates', { mode: 'number' }).notNull(),
  status: boolean('status').notNull(),
  suspended: boolean('suspended').notNull(),
  suspendedBy: nano('suspended_by'),
  disabledBy: nano('disabled_by'),
  spendBlocked: boolean('spend_blocked').notNull(),
  hardLimitNano: nano('hard_limit_nano').notNull(),
  softLimitNano: nano('soft_limit_nano').notNull(),
  dailyLimitNano: nano('daily_limit_nano').notNull(),
  userLimitNano: nano('user_limit_nano').notNull(),
  autoQuotaNano: nano('auto_quota_nano').notNull(),
  rpm: nano('rpm').notNull(),
  rph: nano('rph').notNull(),
  rpd: nano('rpd').notNull(),
  tpm: nano('tpm').notNull(),
  tph: nano('tph').notNull(),
  tpd: nano('tpd').notNull(),
  allowIps: text('allow_ips').notNull(),
  allowModels: text('allow_models').notNull(),
  allowLevels: text('allow_levels').notNull(),
  resources: text('resources').notNull(),
  modelLimits: jsonb('model_limits').$type<Record<string, unknown>>().notNull(),
  modelMapper: text('model_mapper').notNull(),
  levelMapper: text('level_mapper').notNull(),
  keyHash: text('key_hash').notNull(),
  keyPrefix: text('key_prefix').notNull(),
  keyLast4: text('key_last4').notNull(),
  keyLastUsedAt: timestamp('key_last_used_at', { withTimezone: true }),
  daySpendNano: nano('day_spend_nano').notNull(),
  dayStart: date('day_start'),
  monthSpendNano: nano('month_spend_nano').notNull(),
  monthStart: date('month_start'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
  debtNano: nano('debt_nano').notNull(),
  softAlertMonth: date('soft_alert_month'),
  nameScope: nano('name_scope').notNull(),
});

export const ledger = accountsSchema.table('ledger', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  idempotencyKey: text('idempotency_key').notNull(),
  kind: text('kind').notNull(),
  accountId: nano('account_id').notNull(),
  counterpartyId: nano('counterparty_id'),
  amountNano: nano('amount_nano').notNull(),
  description: text('description'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

export const creditLots = accountsSchema.table('credit_lots', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  accountId: nano('account_id').notNull(),
  grantedNano: nano('granted_nano').notNull(),
  remainingNano: nano('remaining_nano').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  ledgerId: nano('ledger_id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

export const idempotencyKeys = accountsSchema.table('idempotency_keys', {
  callerId: nano('caller_id').notNull(),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  operation: text('operation').notNull(),
  response: text('response').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

export const operationLog = accountsSchema.table('operation_log', {
  id: bigserial('id', { mode: 'bigint' }).primaryKey(),
  eventId: text('event_id').notNull(),
  action: text('action').notNull(),
  operatorId: nano('operator_id').notNull(),
  targetType: text('target_type').$type<AuditTargetType>().notNull(),
  targetId: nano('target_id').notNull(),
  tenantId: nano('tenant_id').notNull(),
  details: text('details').notNull(),
  ipAddress: text('ip_address').notNull(),
  status: text('status').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});
