import { ACCOUNT_BOUNDS, AppError, ErrorCode, excerpt, formatUsd, recordingFailure, usd } from '@gw/kit';
import {
  assertOwnerOnlyFields,
  assertWithinActor,
  checkFieldValues,
  isOwnerLike,
  setFields,
  type AccountFields,
} from './account-fields.js';
import { checkAmount } from './account-values.js';
import { takenError, writtenAccount } from './account-write.js';
import { applyAllowModels } from './allow-models.js';
import { describeKey, generateApiKey } from './api-key.js';
import { creditDays, moveCredit } from './credit.js';
import { checkIdempotency, runOnce } from './idempotency.js';
import { loadAncestors } from './inheritance.js';
import { loadCaller } from './load-caller.js';
import { viewOf } from './lots.js';
import { INHERITED_FIELDS, type AccountRecord, type AccountView, type NewAccount } from './model.js';
import { emailKey, emailProblem, nameKey, nameProblem, normaliseName } from './names.js';
import type { AccountsDeps } from './ports/deps.js';
import { nameScopeOf, reportedTenant } from './tenancy.js';

export type { AccountFields } from './account-fields.js';

export const MIN_CREDIT_GRANT_NANO = usd(ACCOUNT_BOUNDS.minCreditUsd);

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

/**
 * IsOwner (docs/adr/0007-multi-tenant-owners.md): only root sets it, only in multi-tenant mode,
 * and there every subaccount of root is an owner.
 */
function checkOwnership(deps: AccountsDeps, caller: AccountRecord, isOwner: boolean): void {
  const multi = deps.policy.tenancy === 'multi';
  if (isOwner && !caller.isRoot) {
    throw new AppError(ErrorCode.Forbidden, 'only root may create an owner');
  }
  if (isOwner && !multi) {
    throw new AppError(ErrorCode.InvalidRequest, 'IsOwner needs the multi-tenant mode (GW_TENANCY=multi)');
  }
  if (caller.isRoot && multi && !isOwner) {
    throw new AppError(
      ErrorCode.InvalidRequest,
      "in multi-tenant mode root's subaccounts are owners: send IsOwner: true",
    );
  }
}

/**
 * Creates a subaccount of the caller funded from the caller's credit in one transaction: the
 * child inherits the caller's access lists, limits and mappings unless the body sets them, and
 * never gets more than the caller may use (docs/decisions.md §13).
 */
export async function createAccount(deps: AccountsDeps, input: CreateAccountInput): Promise<CreatedAccount> {
  const caller = await loadCaller(deps, input.callerId);
  const failure = {
    action: 'add_user' as const,
    operatorId: caller.id,
    ipAddress: input.ipAddress ?? '',
    attempt: `create ${excerpt(input.fields.name ?? '')}`,
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => createAs(deps, caller, input),
  );
}

async function createAs(
  deps: AccountsDeps,
  preCheck: AccountRecord,
  input: CreateAccountInput,
): Promise<CreatedAccount> {
  const { fields } = input;
  const name = normaliseName(fields.name ?? '');
  const email = (fields.email ?? '').trim();
  const problem = nameProblem(name) ?? emailProblem(email);
  if (problem) {
    throw new AppError(ErrorCode.InvalidRequest, problem);
  }
  checkAmount('CreditGranted', input.creditGrantedNano, MIN_CREDIT_GRANT_NANO);
  checkFieldValues(fields);
  const days = creditDays(input.days);
  assertOwnerOnlyFields(preCheck, fields);
  const isOwner = fields.isOwner === true;
  checkOwnership(deps, preCheck, isOwner);
  if (fields.rates !== undefined && fields.rates < preCheck.rates) {
    throw new AppError(ErrorCode.InvalidRequest, `Rates must be at least the parent's (${preCheck.rates})`);
  }

  const idempotency = {
    callerId: input.callerId,
    key: input.idempotencyKey,
    requestHash: input.requestHash ?? '',
  };
  checkIdempotency(idempotency);
  const key = generateApiKey();
  const now = deps.clock.now();
  // Read before the transaction: concurrent creations under one parent queue on its row lock,
  // so the work inside stays short.
  const ancestors = isOwnerLike(preCheck) ? [] : await loadAncestors(deps.store.accounts, preCheck);
  const { value, replayed } = await deps.store.transaction((tx) =>
    runOnce(
      tx.idempotency,
      idempotency,
      'create',
      now,
      async (): Promise<AccountView & { tenantId: bigint }> => {
        // Locking the parent row serialises its grants, so concurrent creations cannot overdraw it.
        const caller = await tx.accounts.lock(input.callerId);
        if (!caller) {
          throw new AppError(ErrorCode.Unauthenticated, 'the calling account no longer exists');
        }
        const ownerId = isOwner ? null : caller.isRoot ? caller.id : caller.ownerId;
        const scope = nameScopeOf({ isRoot: false, isOwner, parentId: caller.id, ownerId }, caller.id);
        const taken = await tx.accounts.nameOrEmailTaken(scope, nameKey(name), emailKey(email));
        if (taken) {
          throw takenError(taken);
        }
        const inherited = Object.fromEntries(INHERITED_FIELDS.map((field) => [field, caller[field]]));
        const described = describeKey(key);
        const record: NewAccount = {
          ...(inherited as Pick<AccountRecord, (typeof INHERITED_FIELDS)[number]>),
          parentId: caller.id,
          ownerId,
          name,
          email,
          alias: fields.alias ?? name,
          billingEmail: fields.billingEmail ?? email,
          qrCode: fields.qrCode ?? '',
          isOwner,
          isRoot: false,
          level: fields.level ?? caller.level,
          gear: fields.gear ?? caller.gear,
          role: fields.role ?? caller.role,
          tier: fields.tier ?? caller.tier,
          factor: fields.factor ?? caller.factor,
          status: true,
          suspended: false,
          suspendedBy: null,
          disabledBy: null,
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
        if (fields.allowModels !== undefined) {
          // `*` gives the child what its creator may use; only an owner's means "everything".
          record.allowModels = applyAllowModels(
            '',
            fields.allowModels,
            isOwnerLike(caller) ? '' : caller.allowModels,
          );
        }
        const actor = [caller, ...ancestors];
        assertWithinActor(caller, actor, record, actor, setFields(fields));
        const created = writtenAccount(
          await tx.accounts.insert(
            { ...record, nameKey: nameKey(name), emailKey: emailKey(email) },
            caller.dna,
            now,
          ),
        );
        await moveCredit(tx, {
          from: caller,
          to: created,
          receiverBalanceNano: 0n,
          amountNano: input.creditGrantedNano,
          days,
          idempotencyKey: `create:${created.id}`,
          now,
        });
        const view = viewOf(created, await tx.lots.live([created.id], now), now);
        return { ...view, tenantId: reportedTenant(caller, created) ?? 0n };
      },
    ),
  );
  const { tenantId, ...view } = value;
  if (!replayed) {
    deps.events.audit({
      action: 'add_user',
      operatorId: input.callerId,
      targetId: view.account.id,
      details: `created ${view.account.name} (${view.account.id})${view.account.isOwner ? ' as an owner' : ''} with ${formatUsd(input.creditGrantedNano)} USD`,
      ipAddress: input.ipAddress ?? '',
      tenantId,
    });
  }
  return { ...view, secretKey: replayed ? '' : key, replayed };
}
