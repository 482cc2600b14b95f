import { AppError, ErrorCode } from '@gw/kit';
import { expiryAfterDays, planSpend } from './lots.js';
import type { AccountRecord } from './model.js';
import type { AccountsTx } from './ports/deps.js';
import type { NewLot } from './ports/lots.js';

export const DEFAULT_CREDIT_DAYS = 180;
export const MAX_CREDIT_DAYS = 3650;

/** One movement of credit between two accounts, inside the caller's transaction. */
export interface CreditMovement {
  from: AccountRecord;
  to: AccountRecord;
  amountNano: bigint;
  /** Validity of the lot the receiver gets. */
  days: number;
  idempotencyKey: string;
  now: Date;
}

/**
 * Moves amountNano from `from` to `to` inside the caller's transaction: root mints, anyone else
 * spends its own lots (earliest expiry first, each take a conditional write). Writes the two
 * ledger legs and the receiver's lot. Returns false when the idempotency key was already used
 * (the earlier movement stands and nothing more moves).
 */
export async function moveCredit(tx: AccountsTx, args: CreditMovement): Promise<boolean> {
  const { from, to, amountNano, now, idempotencyKey } = args;
  if (amountNano <= 0n) {
    throw new AppError(ErrorCode.InvalidRequest, 'amount must be positive');
  }
  let receiverLedgerId: bigint | undefined;
  if (from.isRoot) {
    receiverLedgerId = await tx.ledger.insert({
      idempotencyKey,
      kind: 'mint',
      accountId: to.id,
      counterpartyId: from.id,
      amountNano,
    });
    if (receiverLedgerId === undefined) {
      return false;
    }
  } else {
    const senderLedgerId = await tx.ledger.insert({
      idempotencyKey,
      kind: 'grant',
      accountId: from.id,
      counterpartyId: to.id,
      amountNano: -amountNano,
    });
    if (senderLedgerId === undefined) {
      return false;
    }
    const plan = planSpend(await tx.lots.lockSpendable(from.id, now), amountNano, now);
    if (!plan) {
      throw new AppError(ErrorCode.InsufficientCredit, 'your balance is too low for this grant', {
        accountId: String(from.id),
      });
    }
    for (const step of plan) {
      if (!(await tx.lots.take(step.lotId, step.takeNano))) {
        throw new AppError(ErrorCode.InsufficientCredit, 'your balance is too low for this grant');
      }
    }
    receiverLedgerId = await tx.ledger.insert({
      idempotencyKey,
      kind: 'grant',
      accountId: to.id,
      counterpartyId: from.id,
      amountNano,
    });
    if (receiverLedgerId === undefined) {
      throw new AppError(ErrorCode.Conflict, 'idempotency key already used for this account');
    }
  }
  await creditLot(tx, {
    accountId: to.id,
    amountNano,
    expiresAt: expiryAfterDays(now, args.days),
    ledgerId: receiverLedgerId,
  });
  return true;
}

/**
 * Gives an account credit: post-paid debt is settled first, the rest becomes a lot. The balance
 * (lots − debt) rises by amountNano either way, so conservation is unchanged.
 */
export async function creditLot(tx: AccountsTx, lot: NewLot): Promise<void> {
  const absorbed = await tx.accounts.absorbDebt(lot.accountId, lot.amountNano);
  const rest = lot.amountNano - absorbed;
  if (rest > 0n) {
    await tx.lots.insert({ ...lot, amountNano: rest });
  }
}

/**
 * Negative CreditGranted: moves amountNano from `from` (the target) back to `to` (the caller),
 * taken from the target's lots earliest expiry first; never below zero. Money clawed back to root
 * is un-minted (a negative mint row), since root holds no lots of its own grants.
 */
export async function clawBack(tx: AccountsTx, args: CreditMovement): Promise<void> {
  const { from, to, amountNano, now, idempotencyKey } = args;
  if (amountNano <= 0n) {
    throw new AppError(ErrorCode.InvalidRequest, 'amount must be positive');
  }
  const plan =
    from.debtNano > 0n ? undefined : planSpend(await tx.lots.lockSpendable(from.id, now), amountNano, now);
  if (!plan) {
    throw new AppError(
      ErrorCode.InsufficientCredit,
      "the target's balance is lower than the amount to claw back",
    );
  }
  for (const step of plan) {
    if (!(await tx.lots.take(step.lotId, step.takeNano))) {
      throw new AppError(
        ErrorCode.InsufficientCredit,
        "the target's balance is lower than the amount to claw back",
      );
    }
  }
  if (to.isRoot) {
    const unminted = await tx.ledger.insert({
      idempotencyKey,
      kind: 'mint',
      accountId: from.id,
      counterpartyId: to.id,
      amountNano: -amountNano,
    });
    if (unminted === undefined) {
      throw new AppError(ErrorCode.Conflict, 'this movement was already recorded');
    }
    return;
  }
  const senderLedgerId = await tx.ledger.insert({
    idempotencyKey,
    kind: 'clawback',
    accountId: from.id,
    counterpartyId: to.id,
    amountNano: -amountNano,
  });
  const receiverLedgerId = await tx.ledger.insert({
    idempotencyKey,
    kind: 'clawback',
    accountId: to.id,
    counterpartyId: from.id,
    amountNano,
  });
  if (senderLedgerId === undefined || receiverLedgerId === undefined) {
    throw new AppError(ErrorCode.Conflict, 'this movement was already recorded');
  }
  await creditLot(tx, {
    accountId: to.id,
    amountNano,
    expiresAt: expiryAfterDays(now, args.days),
    ledgerId: receiverLedgerId,
  });
}

export function creditDays(days: number | undefined): number {
  const value = days ?? DEFAULT_CREDIT_DAYS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_CREDIT_DAYS) {
    throw new AppError(ErrorCode.InvalidRequest, `Days must be an integer from 1 to ${MAX_CREDIT_DAYS}`);
  }
  return value;
}
