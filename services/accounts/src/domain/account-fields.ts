import { ACCOUNT_BOUNDS, AppError, ErrorCode } from '@gw/kit';
import {
  checkAllowIps,
  checkAllowLevels,
  checkAllowModels,
  checkAmount,
  checkInteger,
  checkModelLimits,
  checkModelMapper,
  checkMultiplier,
  checkRateLimit,
  checkResources,
} from './account-values.js';
import { checkMapperTargets, checkWithinActor, type ChildValues } from './child-limits.js';
import type { Layers } from './inheritance.js';
import { LIMIT_FIELDS, type AccountRecord } from './model.js';

/** Fields a caller may set; anything else on the record is the system's. */
export type AccountFields = Partial<
  Pick<
    AccountRecord,
    | 'name'
    | 'email'
    | 'alias'
    | 'billingEmail'
    | 'qrCode'
    | 'status'
    | 'suspended'
    | 'rates'
    | 'hardLimitNano'
    | 'softLimitNano'
    | 'dailyLimitNano'
    | 'userLimitNano'
    | 'autoQuotaNano'
    | 'rpm'
    | 'rph'
    | 'rpd'
    | 'tpm'
    | 'tph'
    | 'tpd'
    | 'allowIps'
    | 'allowModels'
    | 'allowLevels'
    | 'resources'
    | 'modelLimits'
    | 'modelMapper'
    | 'level'
    | 'role'
    | 'factor'
    | 'levelMapper'
    | 'gear'
    | 'tier'
    | 'isOwner'
  >
>;

export const OWNER_ONLY_FIELDS = [
  'level',
  'role',
  'factor',
  'levelMapper',
  'gear',
  'tier',
] as const satisfies ReadonlyArray<keyof AccountFields>;

const AMOUNT_FIELDS = {
  hardLimitNano: 'HardLimit',
  softLimitNano: 'SoftLimit',
  dailyLimitNano: 'DailyLimit',
  userLimitNano: 'UserLimit',
  autoQuotaNano: 'AutoQuota',
} as const;

/** Owners and root set anything; everyone else stays inside its own effective lists. */
export function isOwnerLike(account: Pick<AccountRecord, 'isOwner' | 'isRoot'>): boolean {
  return account.isOwner || account.isRoot;
}

/** The fields of a request that carry a value. */
export function setFields(fields: AccountFields): Set<keyof AccountFields> {
  return new Set(
    (Object.keys(fields) as Array<keyof AccountFields>).filter((field) => fields[field] !== undefined),
  );
}

/**
 * Range and form of every field that is set (docs/decisions.md §14), for everyone, owners too:
 * 400 naming the field and its range.
 */
export function checkFieldValues(fields: AccountFields): void {
  for (const [field, name] of Object.entries(AMOUNT_FIELDS) as Array<[keyof typeof AMOUNT_FIELDS, string]>) {
    const value = fields[field];
    if (value !== undefined) {
      checkAmount(name, value);
    }
  }
  for (const field of LIMIT_FIELDS) {
    const value = fields[field];
    if (value !== undefined) {
      checkRateLimit(field.toUpperCase(), value);
    }
  }
  if (fields.rates !== undefined) {
    checkMultiplier('Rates', fields.rates);
  }
  if (fields.factor !== undefined) {
    checkMultiplier('Factor', fields.factor);
  }
  if (fields.level !== undefined) {
    checkInteger('Level', fields.level, 0, 9);
  }
  for (const [field, name] of [
    ['role', 'Role'],
    ['gear', 'Gear'],
    ['tier', 'Tier'],
  ] as const) {
    const value = fields[field];
    if (value !== undefined) {
      checkInteger(name, value, 0, ACCOUNT_BOUNDS.maxAttribute);
    }
  }
  if (fields.allowModels !== undefined) {
    checkAllowModels(fields.allowModels);
  }
  if (fields.allowLevels !== undefined) {
    checkAllowLevels(fields.allowLevels);
  }
  if (fields.resources !== undefined) {
    checkResources(fields.resources);
  }
  if (fields.allowIps !== undefined) {
    checkAllowIps(fields.allowIps);
  }
  if (fields.modelMapper !== undefined) {
    checkModelMapper(fields.modelMapper);
  }
  if (fields.modelLimits !== undefined) {
    checkModelLimits(fields.modelLimits);
  }
}

export function assertOwnerOnlyFields(actor: AccountRecord, fields: AccountFields): void {
  if (!isOwnerLike(actor) && OWNER_ONLY_FIELDS.some((field) => fields[field] !== undefined)) {
    throw new AppError(ErrorCode.Forbidden, `only the owner may set ${OWNER_ONLY_FIELDS.join(', ')}`);
  }
}

/**
 * A child never gets more than its creator (docs/decisions.md §13): for an actor that is not an
 * owner, the child's values after the change (`child`) must fit inside the actor's effective
 * lists (`actor`: the actor and its ancestors), and its ModelMapper may only map to models the
 * child may use (`childAncestors`: the child's ancestors, its parent first).
 */
export function assertWithinActor(
  acting: AccountRecord,
  actor: Layers,
  child: ChildValues,
  childAncestors: Layers,
  set: ReadonlySet<keyof AccountFields>,
): void {
  if (isOwnerLike(acting)) {
    return;
  }
  checkWithinActor(actor, child, set as ReadonlySet<keyof ChildValues>);
  if (set.has('modelMapper') || set.has('allowModels')) {
    checkMapperTargets([child, ...childAncestors], child.modelMapper);
  }
}
