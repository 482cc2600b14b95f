import { AppError, ErrorCode, formatUsd, usd } from '@gw/kit';
import { assertFieldValues } from './account-fields.js';
import { takenError, writtenAccount } from './account-write.js';
import { describeKey, generateApiKey } from './api-key.js';
import { creditDays, moveCredit } from './credit.js';
import { loadCaller } from './load-caller.js';
import { checkIdempotency, runOnce } from './idempotency.js';
import { viewOf } from './lots.js';
import { INHERITED_FIELDS, type AccountRecord, type AccountView, type NewAccount } from './model.js';
import { emailKey, emailProblem, nameKey, nameProblem, normaliseName } from './names.js';
import type { AccountsDeps } from './ports/deps.js';

export const MIN_CREDIT_GRANT_NANO = usd(2);

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

export interface CreateAccountInput {
  callerId: bigint;
  fields: AccountFields;
  creditGrantedNano: bigint;
  days: number | undefined;
  idempotencyKey: string;
  /** Hex SHA-256 of the HTTP request; required with an idempotency key. */
  requestHash?: string;
  ipAddress?: string;
}

export interface CreatedAccount extends AccountView {
  /** Empty on a replay: the key is shown once and never stored. */
  secretKey: string;
  replayed: boolean;
}

function isOwnerLike(caller: AccountRecord): boolean {
  return caller.isOwner || caller.isRoot;
}

/**
 * Creates a subaccount of the caller funded from the caller's credit in one transaction: the
 * child inherits the caller's access lists, limits and mappings unless the body sets them.
 */
export async function createAccount(deps: AccountsDeps, input: CreateAccountInput): Promise<CreatedAccount> {
  const { fields } = input;
  const name = normaliseName(fields.name ?? '');
  const email = (fields.email ?? '').trim();
  const problem = nameProblem(name) ?? emailProblem(email);
  if (problem) {
    throw new AppError(ErrorCode.InvalidRequest, problem);
  }
  assertFieldValues(fields);
  if (input.creditGrantedNano < MIN_CREDIT_GRANT_NANO) {
    throw new AppError(ErrorCode.InvalidRequest, 'CreditGranted must be at least 2 USD');
  }
  const days = creditDays(input.days);
  const preCheck = await loadCaller(deps, input.callerId);
  if (!isOwnerLike(preCheck) && OWNER_ONLY_FIELDS.some((field) => fields[field] !== undefined)) {
    throw new AppError(ErrorCode.Forbidden, `only the owner may set ${OWNER_ONLY_FIELDS.join(', ')}`);
  }
  if (fields.rates !== undefined && fields.rates < preCheck.rates) {
    throw new AppError(ErrorCode.InvalidRequest, "Rates must be at least the parent's");
  }

  const idempotency = {
    callerId: input.callerId,
    key: input.idempotencyKey,
    requestHash: input.requestHash ?? '',
  };
  checkIdempotency(idempotency);
  const key = generateApiKey();
  const now = deps.clock.now();
  const { value, replayed } = await deps.store.transaction((tx) =>
    runOnce(tx.idempotency, idempotency, 'create', async (): Promise<AccountView> => {
      // Locking the parent row serialises its grants, so concurrent creations cannot overdraw it.
      const caller = await tx.accounts.lock(input.callerId);
      if (!caller) {
        throw new AppError(ErrorCode.Unauthenticated, 'the calling account no longer exists');
      }
      const taken = await tx.accounts.nameOrEmailTaken(nameKey(name), emailKey(email));
      if (taken) {
        throw takenError(taken);
      }
      const inherited = Object.fromEntries(INHERITED_FIELDS.map((field) => [field, caller[field]]));
      const described = describeKey(key);
      const record: NewAccount = {
        ...(inherited as Pick<AccountRecord, (typeof INHERITED_FIELDS)[number]>),
        parentId: caller.id,
        ownerId: caller.isRoot ? caller.id : caller.ownerId,
        name,
        email,
        alias: fields.alias ?? name,
        billingEmail: fields.billingEmail ?? email,
        qrCode: fields.qrCode ?? '',
        isOwner: false,
        isRoot: false,
        level: fields.level ?? caller.level,
        gear: fields.gear ?? caller.gear,
        role: fields.role ?? 0,
        tier: fields.tier ?? caller.tier,
        factor: fields.factor ?? caller.factor,
        status: true,
        suspended: false,
        hardLimitNano: fields.hardLimitNano ?? 0n,
        softLimitNano: fields.softLimitNano ?? 0n,
        dailyLimitNano: fields.dailyLimitNano ?? 0n,
        userLimitNano: fields.userLimitNano ?? 0n,
        autoQuotaNano: fields.autoQuotaNano ?? 0n,
        keyHash: described.hash,
        keyPrefix: described.prefix,
        keyLast4: described.last4,
      };
      for (const field of INHERITED_FIELDS) {
        if (fields[field] !== undefined) {
          (record as unknown as Record<string, unknown>)[field] = fields[field];
        }
      }
      const created = writtenAccount(
        await tx.accounts.insert(
          { ...record, nameKey: nameKey(name), emailKey: emailKey(email) },
          caller.dna,
        ),
      );
      await moveCredit(tx, {
        from: caller,
        to: created,
        amountNano: input.creditGrantedNano,
        days,
        idempotencyKey: `create:${created.id}`,
        now,
      });
      return viewOf(created, await tx.lots.live([created.id], now), now);
    }),
  );
  if (!replayed) {
    deps.events.audit({
      action: 'add_user',
      operatorId: input.callerId,
      targetId: value.account.id,
      details: `created ${value.account.name} (${value.account.id}) with ${formatUsd(input.creditGrantedNano)} USD`,
      ipAddress: input.ipAddress ?? '',
    });
  }
  return { ...value, secretKey: replayed ? '' : key, replayed };
}
