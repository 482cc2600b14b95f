import { AppError, ErrorCode, parseUsd, toModelLimitsMessage } from '@gw/kit';
import type { accounts } from '@gw/proto';
import type { UpdateUserBody } from './schemas.js';

/** A USD body field to nano-USD; more than nine decimals is refused, never rounded. */
export function toNano(field: string, amount: number | undefined): bigint | undefined {
  if (amount === undefined) {
    return undefined;
  }
  try {
    return parseUsd(amount);
  } catch {
    throw new AppError(ErrorCode.InvalidRequest, `${field}: must be a USD amount with at most 9 decimals`, {
      field,
    });
  }
}

const big = (value: number | undefined) => (value === undefined ? undefined : BigInt(value));

/** The PascalCase body of a create or an update → the contract's optional account fields. */
export function toAccountFields(body: UpdateUserBody & { IsOwner?: boolean }): accounts.AccountFields {
  return {
    name: body.Name,
    email: body.Email,
    alias: body.Alias,
    billingEmail: body.BillingEmail,
    qrCode: body.QRCode,
    status: body.Status,
    suspended: body.Suspended,
    rates: body.Rates,
    dailyLimitNano: toNano('DailyLimit', body.DailyLimit),
    hardLimitNano: toNano('HardLimit', body.HardLimit),
    softLimitNano: toNano('SoftLimit', body.SoftLimit),
    userLimitNano: toNano('UserLimit', body.UserLimit),
    autoQuotaNano: toNano('AutoQuota', body.AutoQuota),
    rpm: big(body.RPM),
    rph: big(body.RPH),
    rpd: big(body.RPD),
    tpm: big(body.TPM),
    tph: big(body.TPH),
    tpd: big(body.TPD),
    resources: body.Resources,
    allowIps: body.AllowIPs,
    allowModels: body.AllowModels,
    allowLevels: body.AllowLevels,
    modelMapper: body.ModelMapper,
    modelLimits: body.ModelLimits === undefined ? undefined : toModelLimitsMessage(body.ModelLimits),
    // Deprecated field, filled for an accounts service that predates model_limits (docs/adr/0006-typed-contract-fields.md).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    modelLimitsJson: body.ModelLimits === undefined ? undefined : JSON.stringify(body.ModelLimits),
    level: body.Level,
    role: body.Role,
    gear: body.Gear,
    tier: body.Tier,
    factor: body.Factor,
    levelMapper: body.LevelMapper,
    isOwner: body.IsOwner,
  };
}
