import { AppError, ErrorCode, formatUsd, newId } from '@gw/kit';
import { assertManages } from './access.js';
import { assertFieldValues } from './account-fields.js';
import { takenError, writtenAccount } from './account-write.js';
import { applyAllowModels, resourcesOutsideParent } from './allow-models.js';
import { clawBack, creditDays, moveCredit } from './credit.js';
import { OWNER_ONLY_FIELDS, type AccountFields } from './create-account.js';
import { checkIdempotency, runOnce } from './idempotency.js';
import { loadCaller } from './load-caller.js';
import { viewOf } from './lots.js';
import type { AccountRecord, AccountView } from './model.js';
import { emailKey, emailProblem, nameKey, nameProblem, normaliseName } from './names.js';
import type { AccountPatch } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';
import { isHardLimitReached, spendOf } from './spend.js';
import { singleLookup } from './target-lookup.js';

export interface UpdateAccountInput {
  callerId: bigint;
  identifier: string;
  fields: AccountFields;
  /** Positive: recharge from the caller; negative: claw back to the caller. */
  creditGrantedNano: bigint | undefined;
  days: number | undefined;
  idempotencyKey: string;
  requestHash: string;
  ipAddress?: string;
}

export interface UpdatedAccount extends AccountView {
  replayed: boolean;
}

/** What an account may change on itself: its basic fields, never Status or Suspended. */
const SELF_FIELDS = new Set<keyof AccountFields>(['name', 'email', 'alias', 'billingEmail', 'qrCode']);

function isOwnerLike(account: AccountRecord): boolean {
  return account.isOwner || account.isRoot;
}

function checkFields(
  caller: AccountRecord,
  targetId: bigint,
  fields: AccountFields,
  credit: bigint | undefined,
): void {
  const set = (Object.keys(fields) as Array<keyof AccountFields>).filter(
    (field) => fields[field] !== undefined,
  );
  if (caller.id === targetId) {
    if (fields.status !== undefined || fields.suspended !== undefined) {
      throw new AppError(ErrorCode.Forbidden, 'an account cannot change its own Status or Suspended');
    }
    const other = set.filter((field) => !SELF_FIELDS.has(field));
    if (other.length > 0 || (credit !== undefined && credit !== 0n)) {
      throw new AppError(
        ErrorCode.Forbidden,
        'an account may change only its Name, Email, Alias, BillingEmail and QRCode on itself',
      );
    }
  }
  if (!isOwnerLike(caller) && OWNER_ONLY_FIELDS.some((field) => fields[field] !== undefined)) {
    throw new AppError(ErrorCode.Forbidden, `only the owner may set ${OWNER_ONLY_FIELDS.join(', ')}`);
  }
  if (fields.name !== undefined) {
    const problem = nameProblem(normaliseName(fields.name));
    if (problem) {
      throw new AppError(ErrorCode.InvalidRequest, problem);
    }
  }
  if (fields.email !== undefined) {
    const problem = emailProblem(fields.email);
    if (problem) {
      throw new AppError(ErrorCode.InvalidRequest, problem);
    }
  }
  if (fields.billingEmail !== undefined && fields.billingEmail !== '' && emailProblem(fields.billingEmail)) {
    throw new AppError(ErrorCode.InvalidRequest, 'BillingEmail must be a valid address');
  }
  assertFieldValues(fields);
}

/**
 * Updates one account the caller manages (or the caller's own basic fields), with an optional
 * credit movement, in one transaction: the target is looked up inside it, so a replayed
 * Idempotency-Key answers the first result even after a rename. Announces gw.account.changed.
 */
export async function updateAccount(deps: AccountsDeps, input: UpdateAccountInput): Promise<UpdatedAccount> {
  const caller = await loadCaller(deps, input.callerId);
  const lookup = singleLookup(input.identifier);
  const idempotency = { callerId: caller.id, key: input.idempotencyKey, requestHash: input.requestHash };
  checkIdempotency(idempotency);
  const credit = input.creditGrantedNano ?? 0n;
  const days = creditDays(input.days);
  const { fields } = input;
  const now = deps.clock.now();

  const { value, replayed } = await deps.store.transaction((tx) =>
    runOnce(tx.idempotency, idempotency, 'update', async (): Promise<AccountView> => {
      const found = await tx.accounts.findOne(lookup, '.');
      if (!found) {
        throw new AppError(ErrorCode.NotFound, 'no such account');
      }
      if (found.id !== caller.id) {
        assertManages(caller, found);
      }
      checkFields(caller, found.id, fields, credit);
      // Locks top-down (caller, then target), the order every money movement uses.
      const lockedCaller = credit !== 0n ? await tx.accounts.lock(caller.id) : caller;
      const target = await tx.accounts.lock(found.id);
      if (!lockedCaller || !target) {
        throw new AppError(ErrorCode.NotFound, 'no such account');
      }
      const parent =
        target.parentId === null
          ? undefined
          : await tx.accounts.findOne({ by: 'id', id: target.parentId }, '.');
      if (parent && fields.rates !== undefined && fields.rates < parent.rates) {
        throw new AppError(ErrorCode.InvalidRequest, "Rates must be at least the parent's");
      }
      if (parent && fields.resources !== undefined) {
        const outside = resourcesOutsideParent(fields.resources, parent.resources);
        if (outside.length > 0) {
          throw new AppError(
            ErrorCode.InvalidRequest,
            `Resources must be a subset of the parent's (not: ${outside.slice(0, 5).join(', ')})`,
          );
        }
      }

      const { allowModels, name, email, ...rest } = fields;
      const patch: AccountPatch = { ...rest };
      if (name !== undefined) {
        patch.name = normaliseName(name);
        patch.nameKey = nameKey(name);
      }
      if (email !== undefined) {
        patch.email = email.trim();
        patch.emailKey = emailKey(email);
      }
      if (patch.nameKey !== undefined || patch.emailKey !== undefined) {
        const taken = await tx.accounts.nameOrEmailTaken(
          patch.nameKey ?? '',
          patch.emailKey ?? '',
          target.id,
        );
        if (taken) {
          throw takenError(taken);
        }
      }
      if (allowModels !== undefined) {
        patch.allowModels = applyAllowModels(target.allowModels, allowModels);
      }
      if (fields.hardLimitNano !== undefined) {
        patch.spendBlocked = isHardLimitReached(fields.hardLimitNano, spendOf(target, now).monthSpendNano);
      }
      const updated =
        Object.keys(patch).length > 0 ? writtenAccount(await tx.accounts.update(target.id, patch)) : target;

      const key = `update:${newId('ledger')}`;
      if (credit > 0n) {
        await moveCredit(tx, {
          from: lockedCaller,
          to: updated,
          amountNano: credit,
          days,
          idempotencyKey: key,
          now,
        });
      } else if (credit < 0n) {
        await clawBack(tx, {
          from: updated,
          to: lockedCaller,
          amountNano: -credit,
          days,
          idempotencyKey: key,
          now,
        });
      }
      // Read back: debt settlement may have changed the row.
      const fresh = (await tx.accounts.findOne({ by: 'id', id: target.id }, '.')) ?? updated;
      return viewOf(fresh, await tx.lots.live([target.id], now), now);
    }),
  );
  if (!replayed) {
    // The reason tells listeners that act on it (the proxy ends realtime sessions) what happened.
    const reason = fields.status === false ? 'disabled' : fields.suspended === true ? 'suspended' : 'updated';
    deps.events.accountChanged(value.account.id, reason);
    const changed = (Object.keys(fields) as Array<keyof AccountFields>).filter(
      (field) => fields[field] !== undefined,
    );
    deps.events.audit({
      action: 'update_user',
      operatorId: caller.id,
      targetId: value.account.id,
      details:
        [
          changed.length > 0 ? `changed ${changed.join(', ')}` : '',
          credit > 0n
            ? `recharged ${formatUsd(credit)} USD`
            : credit < 0n
              ? `clawed back ${formatUsd(-credit)} USD`
              : '',
        ]
          .filter((part) => part !== '')
          .join('; ') || 'no change',
      ipAddress: input.ipAddress ?? '',
    });
  }
  return { ...value, replayed };
}
