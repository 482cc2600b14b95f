import { AppError, ErrorCode, formatUsd, usd } from '@gw/kit';
import { creditLot, DEFAULT_CREDIT_DAYS } from './credit.js';
import { isInScope } from './dna.js';
import { checkIdempotency, runOnce } from './idempotency.js';
import { loadCaller } from './load-caller.js';
import { balanceOf, expiryAfterDays } from './lots.js';
import type { AccountRecord } from './model.js';
import type { AccountsDeps } from './ports/deps.js';
import { singleLookup } from './target-lookup.js';

export const DELETE_FEE_NANO = usd('0.2');

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
  replayed: boolean;
}

/** Fee = min(0.2 USD, remainder); nothing is charged on an empty or indebted account. */
export function refundOf(remainderNano: bigint): { refundNano: bigint; feeNano: bigint } {
  if (remainderNano <= 0n) {
    return { refundNano: 0n, feeNano: 0n };
  }
  const feeNano = remainderNano < DELETE_FEE_NANO ? remainderNano : DELETE_FEE_NANO;
  return { refundNano: remainderNano - feeNano, feeNano };
}

/** Delete is for the parent, or an owner (or root) above the target (spec: parent or owner). */
export function mayDelete(caller: AccountRecord, target: AccountRecord): boolean {
  if (caller.id === target.id) {
    return false;
  }
  return target.parentId === caller.id || ((caller.isOwner || caller.isRoot) && isInScope(caller, target));
}

/**
 * Deletes an account with no live subaccounts (docs/decisions.md §4): its unexpired remainder
 * (lots − debt) goes to the parent minus the fee, as a lot valid 180 days, with ledger rows
 * `refund` (both legs) and `fee`. The row is soft-deleted, freeing its name, e-mail and key; the
 * key dies at once on every edge (gw.account.changed). Two concurrent deletes: the second finds
 * no live row once the first commits and answers 404. With a debt (remainder ≤ 0) nothing moves
 * and the debt stays on the deleted row, so conservation still holds; usage arriving later is
 * charged to the parent (see debit.ts).
 */
export async function deleteAccount(deps: AccountsDeps, input: DeleteAccountInput): Promise<DeletedAccount> {
  const caller = await loadCaller(deps, input.callerId);
  const lookup = singleLookup(input.identifier);
  const idempotency = { callerId: caller.id, key: input.idempotencyKey, requestHash: input.requestHash };
  checkIdempotency(idempotency);
  const now = deps.clock.now();

  const { value, replayed } = await deps.store.transaction((tx) =>
    runOnce(tx.idempotency, idempotency, 'delete', async () => {
      const found = await tx.accounts.findOne(lookup, '.');
      if (!found) {
        throw new AppError(ErrorCode.NotFound, 'no such account');
      }
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
          { subaccounts: children.map((child) => String(child.id)) },
        );
      }
      const lots = await tx.lots.lockSpendable(target.id, now);
      const remainder = balanceOf(lots, now) - target.debtNano;
      const { refundNano, feeNano } = refundOf(remainder);
      if (remainder > 0n) {
        for (const lot of lots) {
          if (!(await tx.lots.take(lot.id, lot.remainingNano))) {
            throw new AppError(ErrorCode.Conflict, 'the balance changed during the delete; try again');
          }
        }
        await tx.accounts.absorbDebt(target.id, target.debtNano);
        const key = `delete:${target.id}`;
        if (refundNano > 0n) {
          await tx.ledger.insert({
            idempotencyKey: key,
            kind: 'refund',
            accountId: target.id,
            counterpartyId: parent.id,
            amountNano: -refundNano,
          });
          const parentLeg = await tx.ledger.insert({
            idempotencyKey: key,
            kind: 'refund',
            accountId: parent.id,
            counterpartyId: target.id,
            amountNano: refundNano,
          });
          if (parentLeg === undefined) {
            throw new AppError(ErrorCode.Conflict, 'this account was already refunded');
          }
          await creditLot(tx, {
            accountId: parent.id,
            amountNano: refundNano,
            expiresAt: expiryAfterDays(now, DEFAULT_CREDIT_DAYS),
            ledgerId: parentLeg,
          });
        }
        await tx.ledger.insert({
          idempotencyKey: key,
          kind: 'fee',
          accountId: target.id,
          counterpartyId: null,
          amountNano: -feeNano,
        });
      }
      await tx.accounts.markDeleted(target.id);
      return { id: target.id, name: target.name, refundedNano: refundNano, feeNano, keyHash: target.keyHash };
    }),
  );
  if (!replayed) {
    deps.events.accountChanged(value.id, 'deleted', value.keyHash);
    deps.events.audit({
      action: 'delete_user',
      operatorId: caller.id,
      targetId: value.id,
      details: `deleted ${value.name} (${value.id}); refunded ${formatUsd(value.refundedNano)} USD after a ${formatUsd(value.feeNano)} USD fee`,
      ipAddress: input.ipAddress ?? '',
    });
  }
  return {
    id: value.id,
    name: value.name,
    refundedNano: value.refundedNano,
    feeNano: value.feeNano,
    replayed,
  };
}
