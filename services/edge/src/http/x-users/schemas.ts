import { ACCOUNT_BOUNDS } from '@gw/kit';
import { z } from 'zod';
import { usd } from '../../openapi/shared-schemas.js';
import { managementViewSchema } from '../account-views.js';
import { pageParam, sizeParam } from '../paging.js';

/**
 * Bodies of POST /x-users and PUT|POST /x-users/{identifier}, bounded here (docs/decisions.md
 * §14): a message names the real range; accounts checks the same ranges for every caller.
 */
const { maxUsd, minCreditUsd, maxRateLimit, maxMultiplier, maxAttribute, maxMapEntries } = ACCOUNT_BOUNDS;

/** A USD amount as a JSON number from min to maxUsd; at most 9 decimals, checked when converted. */
function usdAmount(min = 0) {
  const range = `${min} to ${maxUsd} USD`;
  return z
    .number({ error: `must be a number of USD (${range})` })
    .min(0, `must not be negative (${range})`)
    .min(min, `must be from ${range}`)
    .max(maxUsd, `must be from ${range}`);
}

function integer(min: number, max: number, note = '') {
  const range = `must be an integer from ${min} to ${max}${note}`;
  return z.number({ error: range }).int(range).min(min, range).max(max, range);
}

const rateLimit = integer(0, maxRateLimit, ' (0: no limit of its own)');
const multiplier = z
  .number({ error: `must be a number above 0 and at most ${maxMultiplier}` })
  .gt(0, `must be a number above 0 and at most ${maxMultiplier}`)
  .max(maxMultiplier, `must be a number above 0 and at most ${maxMultiplier}`);
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

const modelLimits = z
  .record(
    text(256),
    z.strictObject({
      rpm: rateLimit.optional(),
      rph: rateLimit.optional(),
      rpd: rateLimit.optional(),
      tpm: rateLimit.optional(),
      tph: rateLimit.optional(),
      tpd: rateLimit.optional(),
    }),
  )
  .refine(
    (limits) => Object.keys(limits).length <= maxMapEntries,
    `must hold at most ${maxMapEntries} models`,
  );

/** Fields a creator may set on a new account as well as on an existing one. */
const sharedFields = {
  Alias: text(256).optional(),
  BillingEmail: text(320).optional(),
  Rates: multiplier.optional(),
  Days: integer(1, 3650).optional(),
  HardLimit: usdAmount().optional(),
  SoftLimit: usdAmount().optional(),
  AutoQuota: usdAmount().optional(),
  RPM: rateLimit.optional(),
  RPH: rateLimit.optional(),
  RPD: rateLimit.optional(),
  TPM: rateLimit.optional(),
  TPH: rateLimit.optional(),
  TPD: rateLimit.optional(),
  AllowIPs: text(4096).optional(),
  AllowModels: text(4096).optional(),
  AllowLevels: text(256).optional(),
  Resources: text(4096).optional(),
  ModelLimits: modelLimits.optional(),
};

/** POST /x-users. Unknown fields are refused (no mass assignment of Balance, DNA, ID, ...). */
export const createUserBody = z.strictObject({
  Name: text(256),
  Email: text(320),
  CreditGranted: usdAmount(minCreditUsd),
  /** Root only, in multi-tenant mode: the new account owns a tenant. */
  IsOwner: z.boolean().optional(),
  ...sharedFields,
});

const signedRange = `must be from -${maxUsd} to ${maxUsd} USD (negative claws back)`;

/** PUT|POST /x-users/{identifier}: every field optional; unknown fields refused. */
export const updateUserBody = z.strictObject({
  Name: text(256).optional(),
  Email: text(320).optional(),
  CreditGranted: z
    .number({ error: signedRange })
    .min(-maxUsd, signedRange)
    .max(maxUsd, signedRange)
    .optional(),
  ...sharedFields,
  QRCode: text(4096).optional(),
  Status: z.boolean().optional(),
  Suspended: z.boolean().optional(),
  DailyLimit: usdAmount().optional(),
  UserLimit: usdAmount().optional(),
  ModelMapper: text(4096).optional(),
  // Owner only (the accounts service refuses them to others with 403).
  Level: integer(0, 9).optional(),
  Role: integer(0, maxAttribute).optional(),
  Gear: integer(0, maxAttribute).optional(),
  Tier: integer(0, maxAttribute).optional(),
  Factor: multiplier.optional(),
  LevelMapper: text(4096).optional(),
});
export type UpdateUserBody = z.infer<typeof updateUserBody>;

const digits = (max: number) => z.string().regex(new RegExp(`^\\d{1,${max}}$`), 'must be a positive integer');

/** Query of GET /x-users and /x-dna. Repeated parameters (arrays) are refused. */
export const listQuery = z.object({
  id: digits(19).optional(),
  name: z.string().max(256).optional(),
  email: z.string().max(320).optional(),
  level: z.string().regex(/^\d$/, 'must be an integer from 0 to 9').optional(),
  dna: z.string().max(1024).optional(),
  page: pageParam.optional(),
  size: sizeParam.optional(),
  order: z.string().max(64).optional(),
});

/** GET /x-users[/{identifier}] and /x-dna[/{identifier}]. */
export const userListResponse = z.object({
  success: z.literal(true),
  users: z.array(managementViewSchema),
  total: z.number().int(),
  page: z.number().int(),
  size: z.number().int(),
});

/** POST /x-users: the new account's key is shown once, here. */
export const createUserResponse = z.object({
  Action: z.literal('add'),
  User: z.object({
    ID: z.number().int(),
    SecretKey: z.string(),
    Updates: z.object({ ...managementViewSchema.shape, CreditGranted: usd }),
  }),
});

/** PUT|POST /x-users/{identifier}: the account after the change (CreditGranted when credit moved). */
export const updateUserResponse = z.object({
  Action: z.literal('update'),
  User: z.object({ ...managementViewSchema.shape, CreditGranted: usd.optional() }),
});

/** DELETE /x-users/{identifier}. */
export const deleteUserResponse = z.object({
  Action: z.literal('delete'),
  User: z.object({
    ID: z.number().int(),
    Name: z.string(),
    RefundedBalance: usd,
    TransactionFee: usd,
    DebtTransferred: usd,
  }),
  message: z.string(),
});

/** `{identifier}` of /x-users and /x-dna. */
export const IDENTIFIER_PARAM = {
  identifier:
    'An account id or username, or an L/G/R/T/F filter (L1, G2, ...) selecting accounts by attribute',
};
