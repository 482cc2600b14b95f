import { AppError, ErrorCode, excerpt, formatUsd, recordingFailure } from '@gw/kit';
import { isInScope } from './dna.js';
import { checkIdempotency, runOnce } from './idempotency.js';
import { loadCaller } from './load-caller.js';
import type { AccountRecord } from './model.js';
import type { AccountsDeps } from './ports/deps.js';
import { settleDelete } from './settle-delete.js';
import { findInTenant, lookupOf, reportedTenant, singleIdentifier } from './tenancy.js';

export { refundOf } from './return-fee.js';

export interface DeleteAccountInput {
  callerId: bigint;
  identifier: string;
  idempotencyKey: string;
  requestHash: string;
  ipAddress?: string;
}

export interface DeletedAccount {
  id: bigint;
  name: string;
  refundedNano: bigint;
  feeNano: bigint;
  /** Unpaid usage its parent took over. */
  debtMovedNano: bigint;
  replayed: boolean;
}

/** What a delete stores for its Idempotency-Key; answers stored before debts moved lack the field. */
interface StoredDelete {
  id: bigint;
  name: string;
  refundedNano: bigint;
  feeNano: bigint;
  debtMovedNano?: bigint;
  keyHash: string;
  tenantId: bigint;
}

/** Delete is for the parent, or an owner (or root) above the target (spec: parent or owner). */
export function mayDelete(caller: AccountRecord, target: AccountRecord): boolean {
  if (caller.id === target.id) {
    return false;
  }
  return target.parentId === caller.id || ((caller.isOwner || caller.isRoot) && isInScope(caller, target));
}

/**
 * Deletes an account with no live subaccounts (docs/decisions.md §4): its money is settled with
 * the parent (settle-delete.ts) and the row is soft-deleted, freeing its name, e-mail and key;
 * the key dies at once on every edge (gw.account.changed). Two concurrent deletes: the second
 * finds no live row once the first commits and answers 404. Usage arriving later is charged to
 * the nearest live ancestor (see debit.ts).
 */
export async function deleteAccount(deps: AccountsDeps, input: DeleteAccountInput): Promise<DeletedAccount> {
  const caller = await loadCaller(deps, input.callerId);
  const failure = {
    action: 'delete_user' as const,
    operatorId: caller.id,
    ipAddress: input.ipAddress ?? '',
    attempt: `delete ${excerpt(input.identifier)}`,
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => deleteAs(deps, caller, input),
  );
}

async function deleteAs(
  deps: AccountsDeps,
  caller: AccountRecord,
  input: DeleteAccountInput,
): Promise<DeletedAccount> {
  const lookup = lookupOf(singleIdentifier(input.identifier), caller);
  const idempotency = { callerId: caller.id, key: input.idempotencyKey, requestHash: input.requestHash };
  checkIdempotency(idempotency);
  const now = deps.clock.now();

  const { value, replayed } = await deps.store.transaction((tx) =>
    runOnce(tx.idempotency, idempotency, 'delete', now, async (): Promise<StoredDelete> => {
      const found = await findInTenant(tx.accounts, caller, lookup);
      if (!mayDelete(caller, found) || found.parentId === null) {
        throw new AppError(ErrorCode.Forbidden, 'only the parent or the owner may delete this account');
      }
      // Parent first, then the child: the top-down order of every other movement.
      const parent = await tx.accounts.lock(found.parentId);
      const target = await tx.accounts.lock(found.id);
      if (!target || !parent) {
        throw new AppError(ErrorCode.NotFound, 'no such account');
      }
      const children = await tx.accounts.liveChildren(target.id);
      if (children.length > 0) {
        const names = children.slice(0, 20).map((child) => `${child.name} (${child.id})`);
        throw new AppError(
          ErrorCode.InvalidRequest,
          `delete its subaccounts first: ${names.join(', ')}${children.length > 20 ? ` and ${children.length - 20} more` : ''}`,
        );
      }
      const settled = await settleDelete(tx, target, parent, now);
      await tx.accounts.markDeleted(target.id, now);
      return {
        id: target.id,
        name: target.name,
        refundedNano: settled.refundNano,
        feeNano: settled.feeNano,
        debtMovedNano: settled.debtMovedNano,
        keyHash: target.keyHash,
        tenantId: reportedTenant(caller, target) ?? 0n,
      };
    }),
  );
  if (!replayed) {
    deps.events.accountChanged(value.id, 'deleted', value.keyHash);
    const debt =
      value.debtMovedNano !== undefined && value.debtMovedNano > 0n
        ? `; ${formatUsd(value.debtMovedNano)} USD of unpaid usage moved to the parent`
        : '';
    deps.events.audit({
      action: 'delete_user',
      operatorId: caller.id,
      targetId: value.id,
      details: `deleted ${value.name} (${value.id}); refunded ${formatUsd(value.refundedNano)} USD after a ${formatUsd(value.feeNano)} USD fee${debt}`,
      ipAddress: input.ipAddress ?? '',
      tenantId: value.tenantId,
    });
  }
  return {
    id: value.id,
    name: value.name,
    refundedNano: value.refundedNano,
    feeNano: value.feeNano,
    // A replay of an answer stored before this field existed carries none.
    debtMovedNano: value.debtMovedNano ?? 0n,
    replayed,
  };
}
