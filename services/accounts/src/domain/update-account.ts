import { AppError, ErrorCode, excerpt, formatUsd, newId, recordingFailure } from '@gw/kit';
import { assertManages } from './access.js';
import {
  assertOwnerOnlyFields,
  assertWithinActor,
  checkFieldValues,
  isOwnerLike,
  setFields,
  type AccountFields,
} from './account-fields.js';
import { MAX_AMOUNT_NANO, MAX_USD } from './account-values.js';
import { takenError, writtenAccount } from './account-write.js';
import { applyAllowModels } from './allow-models.js';
import { clawBack, creditDays, moveCredit } from './credit.js';
import { checkIdempotency, runOnce } from './idempotency.js';
import { loadAncestors } from './inheritance.js';
import { loadCaller } from './load-caller.js';
import { viewOf } from './lots.js';
import type { AccountRecord, AccountView } from './model.js';
import { emailKey, emailProblem, nameKey, nameProblem, normaliseName } from './names.js';
import type { AccountPatch } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';
import { isHardLimitReached, spendOf } from './spend.js';
import { disablerAfter, suspenderAfter } from './suspension.js';
import { findInTenant, lookupOf, nameScopeOf, reportedTenant, singleIdentifier } from './tenancy.js';

export interface UpdateAccountInput {
  callerId: bigint;
  identifier: string;
  fields: AccountFields;
  /** Positive: recharge from the caller; negative: claw back to the caller. */
  creditGrantedNano: bigint | undefined;
  days: number | undefined;
  idempotencyKey: string;
  requestHash: string;
  /** The request id the call carries: a retried call moves credit once (docs/decisions.md §3). */
  requestId?: string;
  ipAddress?: string;
}

export interface UpdatedAccount extends AccountView {
  replayed: boolean;
}

/** What an account may change on itself: its basic fields, never Status or Suspended. */
const SELF_FIELDS = new Set<keyof AccountFields>(['name', 'email', 'alias', 'billingEmail', 'qrCode']);

function checkSelfUpdate(set: ReadonlySet<keyof AccountFields>, credit: bigint): void {
  if (set.has('status') || set.has('suspended')) {
    throw new AppError(ErrorCode.Forbidden, 'an account cannot change its own Status or Suspended');
  }
  if ([...set].some((field) => !SELF_FIELDS.has(field)) || credit !== 0n) {
    throw new AppError(
      ErrorCode.Forbidden,
      'an account may change only its Name, Email, Alias, BillingEmail and QRCode on itself',
    );
  }
}

function checkInput(fields: AccountFields, credit: bigint): void {
  if (fields.isOwner !== undefined) {
    throw new AppError(ErrorCode.InvalidRequest, 'IsOwner is set when an owner is created, never changed');
  }
  if (credit < -MAX_AMOUNT_NANO || credit > MAX_AMOUNT_NANO) {
    throw new AppError(
      ErrorCode.InvalidRequest,
      `CreditGranted must be from -${MAX_USD} to ${MAX_USD} USD (negative claws back)`,
      { field: 'CreditGranted' },
    );
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
  checkFieldValues(fields);
}

/**
 * The ledger key of an update's credit movement, from the request: its Idempotency-Key, else its
 * request id and body hash, so a call retried after UNAVAILABLE finds the movement made.
 */
function movementKey(caller: AccountRecord, input: UpdateAccountInput): string {
  if (input.idempotencyKey !== '') {
    return `update:${caller.id}:${input.idempotencyKey}`;
  }
  return `update:${caller.id}:${input.requestId ?? newId('ledger')}:${input.requestHash}`;
}

/**
 * Updates one account the caller manages (or the caller's own basic fields), with an optional
 * credit movement, in one transaction: the target is looked up inside it, so a replayed
 * Idempotency-Key answers the first result even after a rename. Announces gw.account.changed.
 */
export async function updateAccount(deps: AccountsDeps, input: UpdateAccountInput): Promise<UpdatedAccount> {
  const caller = await loadCaller(deps, input.callerId);
  const failure = {
    action: 'update_user' as const,
    operatorId: caller.id,
    ipAddress: input.ipAddress ?? '',
    attempt: `update of ${excerpt(input.identifier)}`,
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => updateAs(deps, caller, input),
  );
}

async function updateAs(deps: AccountsDeps, caller: AccountRecord, input: UpdateAccountInput) {
  const lookup = lookupOf(singleIdentifier(input.identifier), caller);
  const idempotency = { callerId: caller.id, key: input.idempotencyKey, requestHash: input.requestHash };
  checkIdempotency(idempotency);
  const credit = input.creditGrantedNano ?? 0n;
  const { fields } = input;
  checkInput(fields, credit);
  const days = creditDays(input.days);
  const set = setFields(fields);
  const now = deps.clock.now();

  const turnsOff = fields.status === false || fields.suspended === true;
  const { value, replayed, below } = await deps.store.transaction(async (tx) => {
    const once = await runOnce(tx.idempotency, idempotency, 'update', now, async () => {
      const found = await findInTenant(tx.accounts, caller, lookup);
      if (found.id === caller.id) {
        checkSelfUpdate(set, credit);
      } else {
        assertManages(caller, found);
      }
      assertOwnerOnlyFields(caller, fields);
      // Locks top-down (caller, then target), the order every money movement uses.
      const lockedCaller = credit !== 0n ? await tx.accounts.lock(caller.id) : caller;
      const target = await tx.accounts.lock(found.id);
      if (!lockedCaller || !target) {
        throw new AppError(ErrorCode.NotFound, 'no such account');
      }
      const ancestors = await loadAncestors(tx.accounts, target);
      const [parent] = ancestors;
      if (parent && fields.rates !== undefined && fields.rates < parent.rates) {
        throw new AppError(ErrorCode.InvalidRequest, `Rates must be at least the parent's (${parent.rates})`);
      }

      const { allowModels, name, email, isOwner: _isOwner, ...rest } = fields;
      const patch: AccountPatch = { ...rest };
      if (fields.suspended !== undefined) {
        patch.suspendedBy = suspenderAfter(caller, target, fields.suspended);
      }
      if (fields.status !== undefined) {
        patch.disabledBy = disablerAfter(caller, target, fields.status);
      }
      if (name !== undefined) {
        patch.name = normaliseName(name);
        patch.nameKey = nameKey(name);
      }
      if (email !== undefined) {
        patch.email = email.trim();
        patch.emailKey = emailKey(email);
      }
      if (patch.nameKey !== undefined || patch.emailKey !== undefined) {
        const scope = nameScopeOf(target, target.id);
        const taken = await tx.accounts.nameOrEmailTaken(
          scope,
          patch.nameKey ?? '',
          patch.emailKey ?? '',
          target.id,
        );
        if (taken) {
          throw takenError(taken);
        }
      }
      if (allowModels !== undefined) {
        // `*` resets to what the parent has, unless an owner (or root) resets it.
        const resetTo = isOwnerLike(caller) ? '' : (parent?.allowModels ?? '');
        patch.allowModels = applyAllowModels(target.allowModels, allowModels, resetTo);
      }
      if (found.id !== caller.id) {
        // The caller is one of the target's ancestors: its own ancestors are the rest of the path.
        const actor = [caller, ...ancestors.slice(ancestors.findIndex((row) => row.id === caller.id) + 1)];
        assertWithinActor(caller, actor, { ...target, ...patch }, ancestors, set);
      }
      if (fields.hardLimitNano !== undefined) {
        patch.spendBlocked = isHardLimitReached(fields.hardLimitNano, spendOf(target, now).monthSpendNano);
      }
      const updated =
        Object.keys(patch).length > 0
          ? writtenAccount(await tx.accounts.update(target.id, patch, now))
          : target;

      const key = movementKey(caller, input);
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
          idempotencyKey: key,
          now,
        });
      }
      // Read back: debt settlement may have changed the row.
      const fresh = (await tx.accounts.findById(target.id)) ?? updated;
      const view = viewOf(fresh, await tx.lots.live([target.id], now), now);
      return { ...view, tenantId: reportedTenant(caller, target) ?? 0n };
    });
    const offBelow =
      turnsOff && !once.replayed ? await tx.accounts.descendantIds(once.value.account.dna) : [];
    return { ...once, below: offBelow };
  });
  const { tenantId, ...view } = value;
  if (!replayed) {
    // The reason tells listeners that act on it (the proxy ends realtime sessions) what happened.
    const reason = fields.status === false ? 'disabled' : fields.suspended === true ? 'suspended' : 'updated';
    deps.events.accountChanged(view.account.id, reason);
    // The account's own event names only it: each account below is told it is off with it, so
    // whatever knows only that account (a realtime session) ends too.
    for (const id of below) {
      deps.events.accountChanged(id, `ancestor_${reason}`);
    }
    deps.events.audit({
      action: 'update_user',
      operatorId: caller.id,
      targetId: view.account.id,
      details: describeUpdate([...set], credit),
      ipAddress: input.ipAddress ?? '',
      tenantId,
    });
  }
  return { ...view, replayed };
}

function describeUpdate(changed: ReadonlyArray<keyof AccountFields>, credit: bigint): string {
  const parts = [
    changed.length > 0 ? `changed ${changed.join(', ')}` : '',
    credit > 0n
      ? `recharged ${formatUsd(credit)} USD`
      : credit < 0n
        ? `clawed back ${formatUsd(-credit)} USD`
        : '',
  ];
  return parts.filter((part) => part !== '').join('; ') || 'no change';
}
