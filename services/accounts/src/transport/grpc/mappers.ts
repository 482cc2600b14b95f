import { fromModelLimitsMessage, toModelLimitsMessage } from '@gw/kit';
import type { accounts as pb } from '@gw/proto';
import type { AccountFields } from '../../domain/create-account.js';
import type { AccountView, Inherited } from '../../domain/model.js';

export function toProtoAccount(view: AccountView): pb.Account {
  const { account: a } = view;
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    alias: a.alias,
    billingEmail: a.billingEmail,
    parentId: a.parentId ?? 0n,
    ownerId: a.ownerId ?? a.id,
    dna: a.dna,
    isOwner: a.isOwner,
    isRoot: a.isRoot,
    level: a.level,
    gear: a.gear,
    role: a.role,
    tier: a.tier,
    factor: a.factor,
    rates: a.rates,
    status: a.status,
    suspended: a.suspended,
    spendBlocked: a.spendBlocked,
    balanceNano: view.balanceNano,
    credits: view.lots.map((lot) => ({
      remainingNano: lot.remainingNano,
      expiresAt: lot.expiresAt.toISOString(),
    })),
    hardLimitNano: a.hardLimitNano,
    softLimitNano: a.softLimitNano,
    dailyLimitNano: a.dailyLimitNano,
    userLimitNano: a.userLimitNano,
    autoQuotaNano: a.autoQuotaNano,
    rpm: a.rpm,
    rph: a.rph,
    rpd: a.rpd,
    tpm: a.tpm,
    tph: a.tph,
    tpd: a.tpd,
    allowIps: a.allowIps,
    allowModels: a.allowModels,
    allowLevels: a.allowLevels,
    resources: a.resources,
    modelLimits: toModelLimitsMessage(a.modelLimits),
    // Deprecated field, filled for readers that predate model_limits (docs/adr/0006-typed-contract-fields.md).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    modelLimitsJson: JSON.stringify(a.modelLimits),
    modelMapper: a.modelMapper,
    levelMapper: a.levelMapper,
    qrCode: a.qrCode,
    keyPrefix: a.keyPrefix,
    keyLast4: a.keyLast4,
    keyLastUsedAt: a.keyLastUsedAt?.toISOString() ?? '',
    inherited: view.inherited && toProtoInherited(view.inherited),
    daySpendNano: a.daySpendNano,
    spendDay: a.dayStart ?? '',
    monthSpendNano: a.monthSpendNano,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

function toProtoInherited(inherited: Inherited): pb.Inherited {
  return {
    allowModels: inherited.allowModels,
    allowLevels: inherited.allowLevels,
    resources: inherited.resources,
    allowIps: inherited.allowIps,
    ...inherited.limits,
    disabled: inherited.disabled,
    suspended: inherited.suspended,
    modelLimits: inherited.modelLimits.map(toModelLimitsMessage),
  };
}

/** proto optional fields → the domain's partial field set (unset stays unset). */
export function fromProtoFields(fields: pb.AccountFields | undefined): AccountFields {
  if (!fields) {
    return {};
  }
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const { modelLimits, modelLimitsJson, ...rest } = fields;
  const out: AccountFields = Object.fromEntries(
    (Object.entries(rest) as Array<[string, unknown]>).filter(([, value]) => value !== undefined),
  );
  if (modelLimits) {
    out.modelLimits = fromModelLimitsMessage(modelLimits);
  } else if (modelLimitsJson !== undefined) {
    // Only an edge that predates model_limits sends the JSON (docs/adr/0006-typed-contract-fields.md).
    out.modelLimits = JSON.parse(modelLimitsJson) as Record<string, unknown>;
  }
  return out;
}
