// The two views of an account the API answers, each schema (registered in the API document)
// beside the function that builds it: the management view of /x-users and the nested `user_info`
// of /dashboard/info, /dashboard/live and /x-info.
import { accountModelLimits, isOwnerAccount, nanoToUsd } from '@gw/kit';
import type { accounts } from '@gw/proto';
import { z } from 'zod';
import { modelLimitsObject, timestamp, usd } from '../openapi/shared-schemas.js';
import type { UsageCounts } from './usage/account-usage.js';

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

type Account = accounts.Account;

/** Keys are shown only by their visible prefix and last four characters. */
export function maskedKey(account: Account): string {
  return `${account.keyPrefix}...${account.keyLast4}`;
}

/**
 * May use the Manage console: enabled, not suspended, and with credit left; root and owners manage
 * their whole tree, so their own balance does not matter.
 */
export function canManage(account: Account): boolean {
  return account.status && !account.suspended && (isOwnerAccount(account) || account.balanceNano > 0n);
}

/** The management view (PascalCase) of an account, never with its key. */
export function managementView(account: Account): ManagementView {
  return {
    ID: Number(account.id),
    Name: account.name,
    Email: account.email,
    Alias: account.alias,
    BillingEmail: account.billingEmail,
    Balance: nanoToUsd(account.balanceNano),
    CreditBalance: account.credits.map((lot) => ({
      amount: nanoToUsd(lot.remainingNano),
      expires_at: lot.expiresAt,
    })),
    Level: account.level,
    Gear: account.gear,
    Role: account.role,
    Tier: account.tier,
    Factor: account.factor,
    Rates: account.rates,
    DNA: account.dna,
    IsOwner: account.isOwner,
    Status: account.status,
    Suspended: account.suspended,
    HardLimit: nanoToUsd(account.hardLimitNano),
    SoftLimit: nanoToUsd(account.softLimitNano),
    DailyLimit: nanoToUsd(account.dailyLimitNano),
    UserLimit: nanoToUsd(account.userLimitNano),
    AutoQuota: nanoToUsd(account.autoQuotaNano),
    RPM: Number(account.rpm),
    RPH: Number(account.rph),
    RPD: Number(account.rpd),
    TPM: Number(account.tpm),
    TPH: Number(account.tph),
    TPD: Number(account.tpd),
    AllowIPs: account.allowIps,
    AllowModels: account.allowModels,
    AllowLevels: account.allowLevels,
    Resources: account.resources,
    ModelLimits: accountModelLimits(account),
    ModelMapper: account.modelMapper,
    LevelMapper: account.levelMapper,
    QRCode: account.qrCode,
    PublicKey: maskedKey(account),
    KeyLastUsedAt: account.keyLastUsedAt || null,
    CreatedAt: account.createdAt,
    UpdatedAt: account.updatedAt,
  };
}

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

function listOf(text: string): string[] {
  return text.split(/[\s,]+/).filter((item) => item !== '');
}

/**
 * The nested `user_info` form of /dashboard/info and /x-info. In `usage`, requests and tokens are
 * billing's count of the account's calls today and this month (UTC); `cost` is the account's
 * spend from accounts, the figure DailyLimit and HardLimit are held against (calls and bill fees).
 */
export function userInfoView(account: Account, usage: UsageCounts): UserInfoView {
  return {
    object: 'user_info' as const,
    user: {
      id: Number(account.id),
      name: account.name,
      email: account.email,
      alias: account.alias,
      level: account.level,
      gear: account.gear,
      role: account.role,
      tier: account.tier,
      factor: account.factor,
      rates: account.rates,
      dna: account.dna,
      is_owner: account.isOwner,
      created_at: account.createdAt,
      updated_at: account.updatedAt,
    },
    balance: {
      total: nanoToUsd(account.balanceNano),
      credits: account.credits.map((lot) => ({
        amount: nanoToUsd(lot.remainingNano),
        expires_at: lot.expiresAt,
      })),
    },
    limits: {
      hard_limit: nanoToUsd(account.hardLimitNano),
      soft_limit: nanoToUsd(account.softLimitNano),
      auto_quota: nanoToUsd(account.autoQuotaNano),
      rpm: Number(account.rpm),
      rph: Number(account.rph),
      rpd: Number(account.rpd),
      tpm: Number(account.tpm),
      tph: Number(account.tph),
      tpd: Number(account.tpd),
    },
    usage: {
      today: { ...usage.today, cost: nanoToUsd(account.daySpendNano) },
      month: { ...usage.month, cost: nanoToUsd(account.monthSpendNano) },
    },
    restrictions: {
      allow_ips: listOf(account.allowIps),
      allow_models: listOf(account.allowModels),
      resources: listOf(account.resources),
    },
    model_limits: Object.fromEntries(
      Object.entries(accountModelLimits(account)).map(([model, limits]) => [
        model,
        { rpm: limits.rpm ?? 0, tpm: limits.tpm ?? 0 },
      ]),
    ),
    model_mapper: account.modelMapper,
    level_mapper: account.levelMapper,
  };
}
