import { z } from 'zod';

/** A USD amount as a JSON number: finite, at most 9 decimals (checked again when converted). */
const usdAmount = z.number().finite();
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const text = (max: number) => z.string().max(max);

/** POST /x-users. Unknown fields are refused (no mass assignment of Balance, DNA, ID, ...). */
export const createUserBody = z.strictObject({
  Name: text(256),
  Email: text(320),
  CreditGranted: usdAmount,
  Alias: text(256).optional(),
  BillingEmail: text(320).optional(),
  Rates: z.number().finite().positive().optional(),
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
  ModelLimits: z.record(z.string().max(256), z.record(z.string(), count)).optional(),
});
export type CreateUserBody = z.infer<typeof createUserBody>;
