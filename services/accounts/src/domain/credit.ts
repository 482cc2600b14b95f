import { AppError, ErrorCode, formatUsd } from '@gw/kit';
import { MAX_AMOUNT_NANO, MAX_USD } from './account-values.js';
import { balanceOf, expiryAfterDays, planSpend } from './lots.js';
import type { AccountRecord, CreditLot } from './model.js';
import type { AccountsTx } from './ports/deps.js';
import { refundOf } from './return-fee.js';

export const DEFAULT_CREDIT_DAYS = 180;
export const MAX_CREDIT_DAYS = 3650;

/** One movement of credit between two accounts, inside the caller's transaction. */
export interface CreditMovement {
  from: AccountRecord;
  to: AccountRecord;
  amountNano: bigint;
  /** Longest validity the receiver's credit may have, from now. */
  days: number;
  /** Derived from the request (docs/decisions.md §3): a retried request finds it already used. */
  idempotencyKey: string;
  now: Date;
  /** The receiver's balance when the caller knows it (a new account: 0), saving a read. */
  receiverBalanceNano?: bigint;
}

/** Part of a movement: an amount and the expiry it keeps. */
export interface CreditPiece {
  amountNano: bigint;
  expiresAt: Date;
}

function earlier(a: Date, b: Date): Date {
  return a.getTime() <= b.getTime() ? a : b;
}

/**
 * Takes amountNano from an account's own lots, earliest expiry first, in one conditional
 * write; returns what was taken as pieces carrying their lots' expiries. Undefined when the
 * unexpired lots cannot cover it.
 */
async function takeFromLots(
  tx: AccountsTx,
  accountId: bigint,
  amountNano: bigint,
  now: Date,
): Promise<CreditPiece[] | undefined> {
  const lots = await tx.lots.lockSpendable([accountId], now);
  const plan = planSpend(lots, amountNano, now);
  if (!plan || !(await tx.lots.take(plan))) {
    return undefined;
  }
  const byId = new Map(lots.map((lot): [bigint, CreditLot] => [lot.id, lot]));
  return plan.flatMap((step) => {
    const lot = byId.get(step.lotId);
    return lot ? [{ amountNano: step.takeNano, expiresAt: lot.expiresAt }] : [];
  });
}

/** Refuses a credit that would take a balance above MAX_USD (kept far inside int64 nano-USD). */
async function assertRoom(
  tx: AccountsTx,
  account: AccountRecord,
  amountNano: bigint,
  now: Date,
  knownBalanceNano?: bigint,
): Promise<void> {
  if (account.isRoot) {
    return;
  }
  const balance =
    knownBalanceNano ?? balanceOf(await tx.lots.live([account.id], now), now) - account.debtNano;
  if (balance + amountNano > MAX_AMOUNT_NANO) {
    throw new AppError(
      ErrorCode.InvalidRequest,
      `the balance of ${account.name} would exceed ${MAX_USD} USD (it holds ${formatUsd(balance)} USD)`,
    );
  }
}

/**
 * Moves amountNano from `from` to `to` inside the caller's transaction: root mints (valid `days`
 * from now); anyone else gives from its own lots, earliest expiry first, and the receiver's credit
 * keeps the expiry of the lots it came from, capped at `days` from now, so no move ever extends
 * the life of credit. Writes the two ledger legs and the receiver's lots. Returns false when the
 * idempotency key was already used (the earlier movement stands and nothing more moves).
 */
export async function moveCredit(tx: AccountsTx, args: CreditMovement): Promise<boolean> {
  const { from, to, amountNano, now, idempotencyKey } = args;
  if (amountNano <= 0n) {
    throw new AppError(ErrorCode.InvalidRequest, 'amount must be positive');
  }
  const cap = expiryAfterDays(now, args.days);
  if (from.isRoot) {
    const receiverLedgerId = await tx.ledger.insert(
      {
        idempotencyKey,
        kind: 'mint',
        accountId: to.id,
        counterpartyId: from.id,
        amountNano,
      },
      now,
    );
    if (receiverLedgerId === undefined) {
      return false;
    }
    await assertRoom(tx, to, amountNano, now, args.receiverBalanceNano);
    await creditPieces(tx, to.id, [{ amountNano, expiresAt: cap }], receiverLedgerId, now);
    return true;
  }
  const senderLedgerId = await tx.ledger.insert(
    {
      idempotencyKey,
      kind: 'grant',
      accountId: from.id,
      counterpartyId: to.id,
      amountNano: -amountNano,
    },
    now,
  );
  if (senderLedgerId === undefined) {
    return false;
  }
  await assertRoom(tx, to, amountNano, now, args.receiverBalanceNano);
  const pieces = await takeFromLots(tx, from.id, amountNano, now);
  if (!pieces) {
    throw new AppError(ErrorCode.InsufficientCredit, 'your balance is too low for this grant');
  }
  const receiverLedgerId = await tx.ledger.insert(
    {
      idempotencyKey,
      kind: 'grant',
      accountId: to.id,
      counterpartyId: from.id,
      amountNano,
    },
    now,
  );
  if (receiverLedgerId === undefined) {
    throw new AppError(ErrorCode.Conflict, 'idempotency key already used for this account');
  }
  const capped = pieces.map((piece) => ({ ...piece, expiresAt: earlier(piece.expiresAt, cap) }));
  await creditPieces(tx, to.id, capped, receiverLedgerId, now);
  return true;
}

/**
 * Gives an account credit in pieces: post-paid debt is settled first (from the earliest-expiring
 * pieces), the rest becomes lots with the pieces' expiries. The balance (lots − debt) rises by
 * the pieces' sum either way, so conservation is unchanged.
 */
export async function creditPieces(
  tx: AccountsTx,
  accountId: bigint,
  pieces: readonly CreditPiece[],
  ledgerId: bigint,
  now: Date,
): Promise<void> {
  const total = pieces.reduce((sum, piece) => sum + piece.amountNano, 0n);
  let absorbed = await tx.accounts.absorbDebt(accountId, total);
  const byExpiry = new Map<number, bigint>();
  for (const piece of [...pieces].sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())) {
    const settled = absorbed < piece.amountNano ? absorbed : piece.amountNano;
    absorbed -= settled;
    const rest = piece.amountNano - settled;
    if (rest > 0n) {
      const at = piece.expiresAt.getTime();
      byExpiry.set(at, (byExpiry.get(at) ?? 0n) + rest);
    }
  }
  for (const [at, amountNano] of byExpiry) {
    await tx.lots.insert({ accountId, amountNano, expiresAt: new Date(at), ledgerId }, now);
  }
}

/** Takes `amountNano` off the front of pieces sorted by expiry; returns what is left. */
export function dropEarliest(pieces: readonly CreditPiece[], amountNano: bigint): CreditPiece[] {
  let left = amountNano;
  const kept: CreditPiece[] = [];
  for (const piece of pieces) {
    const used = left < piece.amountNano ? left : piece.amountNano;
    left -= used;
    if (piece.amountNano > used) {
      kept.push({ ...piece, amountNano: piece.amountNano - used });
    }
  }
  return kept;
}

/**
 * Negative CreditGranted: takes amountNano from `from` (the target), from its lots earliest
 * expiry first, never below zero, and returns it to `to` (the caller) minus the return fee of
 * min(0.2 USD, amount), as a delete's refund pays it (docs/decisions.md §4): the fee is taken from
 * the earliest-expiring pieces and the rest keeps the expiry it had. Money clawed back to root is
 * un-minted (a negative mint row), since root holds no lots of its own grants. Returns false when
 * the idempotency key was already used.
 */
export async function clawBack(tx: AccountsTx, args: Omit<CreditMovement, 'days'>): Promise<boolean> {
  const { from, to, amountNano, now, idempotencyKey } = args;
  if (amountNano <= 0n) {
    throw new AppError(ErrorCode.InvalidRequest, 'amount must be positive');
  }
  const { refundNano, feeNano } = refundOf(amountNano);
  const feeLedgerId = await tx.ledger.insert(
    {
      idempotencyKey,
      kind: 'fee',
      accountId: from.id,
      counterpartyId: null,
      amountNano: -feeNano,
    },
    now,
  );
  if (feeLedgerId === undefined) {
    return false;
  }
  const pieces = from.debtNano > 0n ? undefined : await takeFromLots(tx, from.id, amountNano, now);
  if (!pieces) {
    throw new AppError(
      ErrorCode.InsufficientCredit,
      "the target's balance is lower than the amount to claw back",
    );
  }
  if (refundNano === 0n) {
    return true;
  }
  const senderLedgerId = await tx.ledger.insert(
    {
      idempotencyKey,
      kind: to.isRoot ? 'mint' : 'clawback',
      accountId: from.id,
      counterpartyId: to.id,
      amountNano: -refundNano,
    },
    now,
  );
  if (senderLedgerId === undefined) {
    throw new AppError(ErrorCode.Conflict, 'this movement was already recorded');
  }
  if (to.isRoot) {
    return true;
  }
  await assertRoom(tx, to, refundNano, now);
  const receiverLedgerId = await tx.ledger.insert(
    {
      idempotencyKey,
      kind: 'clawback',
      accountId: to.id,
      counterpartyId: from.id,
      amountNano: refundNano,
    },
    now,
  );
  if (receiverLedgerId === undefined) {
    throw new AppError(ErrorCode.Conflict, 'this movement was already recorded');
  }
  await creditPieces(tx, to.id, dropEarliest(pieces, feeNano), receiverLedgerId, now);
  return true;
}

export function creditDays(days: number | undefined): number {
  const value = days ?? DEFAULT_CREDIT_DAYS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_CREDIT_DAYS) {
    throw new AppError(ErrorCode.InvalidRequest, `Days must be an integer from 1 to ${MAX_CREDIT_DAYS}`);
  }
  return value;
}
