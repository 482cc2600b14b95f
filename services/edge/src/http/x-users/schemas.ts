import { z } from 'zod';

/** A USD amount as a JSON number (zod 4 numbers are finite); at most 9 decimals, checked when converted. */
const usdAmount = z.number();
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const text = (max: number) => z.string().max(max);

/** A ModelLimits member: `{ rpm, rph, rpd, tpm, tph, tpd }`, each optional, nothing else. */
const rateLimits = z.strictObject({
  rpm: count.optional(),
  rph: count.optional(),
  rpd: count.optional(),
  tpm: count.optional(),
  tph: count.optional(),
  tpd: count.optional(),
});

/** Fields a creator may set on a new account as well as on an existing one. */
const sharedFields = {
  Alias: text(256).optional(),
  BillingEmail: text(320).optional(),
  Rates: z.number().positive().optional(),
  Days: z.number().int().min(1).max(3650).optional(),
  HardLimit: usdAmount.min(0).optional(),
  SoftLimit: usdAmount.min(0).optional(),
  AutoQuota: usdAmount.min(0).optional(),
  RPM: count.optional(),
  RPH: count.optional(),
  RPD: count.optional(),
  TPM: count.optional(),
  TPH: count.optional(),
  TPD: count.optional(),
  AllowIPs: text(4096).optional(),
  AllowModels: text(4096).optional(),
  AllowLevels: text(256).optional(),
  Resources: text(4096).optional(),
  ModelLimits: z.record(z.string().max(256), rateLimits).optional(),
};

/** POST /x-users. Unknown fields are refused (no mass assignment of Balance, DNA, ID, ...). */
export const createUserBody = z.strictObject({
  Name: text(256),
  Email: text(320),
  CreditGranted: usdAmount,
  ...sharedFields,
});
export type CreateUserBody = z.infer<typeof createUserBody>;

const ownerInt = z.number().int().min(0).max(1_000_000);

/** PUT|POST /x-users/{identifier}: every field optional; unknown fields refused. */
export const updateUserBody = z.strictObject({
  Name: text(256).optional(),
  Email: text(320).optional(),
  CreditGranted: usdAmount.optional(),
  ...sharedFields,
  QRCode: text(4096).optional(),
  Status: z.boolean().optional(),
  Suspended: z.boolean().optional(),
  DailyLimit: usdAmount.min(0).optional(),
  UserLimit: usdAmount.min(0).optional(),
  ModelMapper: text(4096).optional(),
  // Owner only (the accounts service refuses them to others with 403).
  Level: z.number().int().min(0).max(9).optional(),
  Role: ownerInt.optional(),
  Gear: ownerInt.optional(),
  Tier: ownerInt.optional(),
  Factor: z.number().min(0).max(1_000_000).optional(),
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
  page: digits(7)
    .refine((value) => Number(value) >= 1, 'must be at least 1')
    .optional(),
  size: digits(9)
    .refine((value) => Number(value) >= 1, 'must be at least 1')
    .optional(),
  order: z.string().max(64).optional(),
});
