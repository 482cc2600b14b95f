import { AppError, ErrorCode } from '@gw/kit';
import { creditPieces, DEFAULT_CREDIT_DAYS, dropEarliest, type CreditPiece } from './credit.js';
import { expiryAfterDays, planSpendUpTo } from './lots.js';
import type { AccountRecord } from './model.js';
import type { AccountsTx } from './ports/deps.js';
import { refundOf } from './return-fee.js';

export interface DeleteSettlement {
  refundNano: bigint;
  feeNano: bigint;
  /** Unpaid usage the parent took over. */
  debtMovedNano: bigint;
}

/**
 * The money of a deleted account, in the delete's transaction (docs/decisions.md §4): its lots
 * pay its post-paid debt first (earliest expiry first); what remains goes to the parent minus
 * the fee, each part keeping the expiry it had (at most 180 days from now), never a longer one;
 * a debt the lots cannot pay moves to the parent (ledger `debt` legs), which pays it from its own
 * lots or owes it in turn (root mints it). Nothing is written off.
 */
export async function settleDelete(
  tx: AccountsTx,
  target: AccountRecord,
  parent: AccountRecord,
  now: Date,
): Promise<DeleteSettlement> {
  const key = `delete:${target.id}`;
  const lots = await tx.lots.lockSpendable([target.id], now);
  if (!(await tx.lots.take(lots.map((lot) => ({ lotId: lot.id, takeNano: lot.remainingNano }))))) {
    throw new AppError(ErrorCode.Conflict, 'the balance changed during the delete; try again');
  }
  const pieces: CreditPiece[] = lots.map((lot) => ({
    amountNano: lot.remainingNano,
    expiresAt: lot.expiresAt,
  }));
  const held = pieces.reduce((sum, piece) => sum + piece.amountNano, 0n);
  const paid = await tx.accounts.absorbDebt(target.id, held);
  const remaining = dropEarliest(pieces, paid);
  const { refundNano, feeNano } = refundOf(held - paid);

  if (refundNano > 0n) {
    await tx.ledger.insert(
      {
        idempotencyKey: key,
        kind: 'refund',
        accountId: target.id,
        counterpartyId: parent.id,
        amountNano: -refundNano,
      },
      now,
    );
    const parentLeg = await tx.ledger.insert(
      {
        idempotencyKey: key,
        kind: 'refund',
        accountId: parent.id,
        counterpartyId: target.id,
        amountNano: refundNano,
      },
      now,
    );
    if (parentLeg === undefined) {
      throw new AppError(ErrorCode.Conflict, 'this account was already refunded');
    }
    const cap = expiryAfterDays(now, DEFAULT_CREDIT_DAYS);
    const refunded = dropEarliest(remaining, feeNano).map((piece) => ({
      ...piece,
      expiresAt: piece.expiresAt < cap ? piece.expiresAt : cap,
    }));
    await creditPieces(tx, parent.id, refunded, parentLeg, now);
  }
  if (feeNano > 0n) {
    await tx.ledger.insert(
      {
        idempotencyKey: key,
        kind: 'fee',
        accountId: target.id,
        counterpartyId: null,
        amountNano: -feeNano,
      },
      now,
    );
  }
  const debtMovedNano = target.debtNano - paid;
  if (debtMovedNano > 0n) {
    await moveDebt(tx, target, parent, debtMovedNano, key, now);
  }
  return { refundNano, feeNano, debtMovedNano };
}

/** The deleted account's debt becomes its parent's: paid from its lots, the rest owed (root mints). */
async function moveDebt(
  tx: AccountsTx,
  target: AccountRecord,
  parent: AccountRecord,
  debtNano: bigint,
  key: string,
  now: Date,
): Promise<void> {
  await tx.ledger.insert(
    {
      idempotencyKey: key,
      kind: parent.isRoot ? 'mint' : 'debt',
      accountId: target.id,
      counterpartyId: parent.id,
      amountNano: debtNano,
    },
    now,
  );
  await tx.accounts.absorbDebt(target.id, debtNano);
  if (parent.isRoot) {
    return;
  }
  await tx.ledger.insert(
    {
      idempotencyKey: key,
      kind: 'debt',
      accountId: parent.id,
      counterpartyId: target.id,
      amountNano: -debtNano,
    },
    now,
  );
  const plan = planSpendUpTo(await tx.lots.lockSpendable([parent.id], now), debtNano, now);
  if (!(await tx.lots.take(plan.steps))) {
    throw new AppError(ErrorCode.Conflict, 'the balance changed during the delete; try again');
  }
  if (plan.shortfallNano > 0n) {
    await tx.accounts.addDebt(parent.id, plan.shortfallNano);
  }
}
