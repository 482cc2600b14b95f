import { nanoToUsd } from '@gw/kit';
import type { accounts } from '@gw/proto';

type Account = accounts.Account;

/** Keys are shown only by their visible prefix and last four characters. */
export function maskedKey(account: Account): string {
  return `${account.keyPrefix}...${account.keyLast4}`;
}

export function isOwnerAccount(account: Account): boolean {
  return account.isOwner || account.isRoot;
}

/** May use the Manage console: enabled, not suspended, and with credit left. */
export function canManage(account: Account): boolean {
  return account.status && !account.suspended && account.balanceNano > 0n;
}

/** The management view (PascalCase) of an account, never with its key. */
export function managementView(account: Account) {
  return {
    ID: Number(account.id),
    Name: account.name,
    Email: account.email,
    Alias: account.alias,
    BillingEmail: account.billingEmail,
    Balance: nanoToUsd(account.balanceNano),
    CreditBalance: account.credits.map((lot) => ({ amount: nanoToUsd(lot.remainingNano), expires_at: lot.expiresAt })),
    Level: account.level,
    Gear: account.gear,
    Role: account.role,
    Tier: account.tier,
    Factor: account.factor,
    Rates: account.rates,
    DNA: account.dna,
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
    ModelLimits: JSON.parse(account.modelLimitsJson || '{}') as unknown,
    ModelMapper: account.modelMapper,
    QRCode: account.qrCode,
    PublicKey: maskedKey(account),
    CreatedAt: account.createdAt,
    UpdatedAt: account.updatedAt,
  };
}
