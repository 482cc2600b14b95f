import { z } from 'zod';
import { modelLimitsObject, timestamp, usd } from '../openapi/shared-schemas.js';

const creditLot = z.object({ amount: usd, expires_at: timestamp });

/** The management view of an account (`managementView`); never its key. */
export const managementViewSchema = z
  .object({
    ID: z.number().int(),
    Name: z.string(),
    Email: z.string(),
    Alias: z.string(),
    BillingEmail: z.string(),
    Balance: usd,
    CreditBalance: z.array(creditLot),
    Level: z.number().int(),
    Gear: z.number().int(),
    Role: z.number().int(),
    Tier: z.number().int(),
    Factor: z.number(),
    Rates: z.number(),
    DNA: z.string(),
    IsOwner: z.boolean(),
    Status: z.boolean(),
    Suspended: z.boolean(),
    HardLimit: usd,
    SoftLimit: usd,
    DailyLimit: usd,
    UserLimit: usd,
    AutoQuota: usd,
    RPM: z.number().int(),
    RPH: z.number().int(),
    RPD: z.number().int(),
    TPM: z.number().int(),
    TPH: z.number().int(),
    TPD: z.number().int(),
    AllowIPs: z.string(),
    AllowModels: z.string(),
    AllowLevels: z.string(),
    Resources: z.string(),
    ModelLimits: modelLimitsObject,
    ModelMapper: z.string(),
    LevelMapper: z.string(),
    QRCode: z.string(),
    PublicKey: z.string().meta({ description: 'The key prefix and its last four characters.' }),
    KeyLastUsedAt: timestamp.nullable(),
    CreatedAt: timestamp,
    UpdatedAt: timestamp,
  })
  .meta({ id: 'ManagedAccount' });
export type ManagementView = z.output<typeof managementViewSchema>;

const usage = z.object({ requests: z.number().int(), tokens: z.number().int(), cost: usd });

/** The nested `user_info` of /dashboard/info and /x-info (`userInfoView`). */
export const userInfoSchema = z
  .object({
    object: z.literal('user_info'),
    user: z.object({
      id: z.number().int(),
      name: z.string(),
      email: z.string(),
      alias: z.string(),
      level: z.number().int(),
      gear: z.number().int(),
      role: z.number().int(),
      tier: z.number().int(),
      factor: z.number(),
      rates: z.number(),
      dna: z.string(),
      is_owner: z.boolean(),
      created_at: timestamp,
      updated_at: timestamp,
    }),
    balance: z.object({ total: usd, credits: z.array(creditLot) }),
    limits: z.object({
      hard_limit: usd,
      soft_limit: usd,
      auto_quota: usd,
      rpm: z.number().int(),
      rph: z.number().int(),
      rpd: z.number().int(),
      tpm: z.number().int(),
      tph: z.number().int(),
      tpd: z.number().int(),
    }),
    usage: z.object({ today: usage, month: usage }),
    restrictions: z.object({
      allow_ips: z.array(z.string()),
      allow_models: z.array(z.string()),
      resources: z.array(z.string()),
    }),
    model_limits: z.record(z.string(), z.object({ rpm: z.number().int(), tpm: z.number().int() })),
    /** The account's own mappers (the owner's LEVEL_MAPPER and MODEL_MAPPER apply after them). */
    model_mapper: z.string(),
    level_mapper: z.string(),
  })
  .meta({ id: 'UserInfo' });
export type UserInfoView = z.output<typeof userInfoSchema>;
