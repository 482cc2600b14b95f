import type { AccountRecord, AccountView, CreditLot } from './model.js';
import { spendOf } from './spend.js';

/** Σ unexpired lot remainders (a lot counts while now < expires_at). */
export function balanceOf(lots: readonly CreditLot[], now: Date): bigint {
  return lots.filter((lot) => lot.expiresAt > now).reduce((sum, lot) => sum + lot.remainingNano, 0n);
}

/**
 * The account as shown at `now`: its balance (unexpired lots minus post-paid debt, may be
 * negative) and its spend of the current day and month.
 */
export function viewOf(account: AccountRecord, lots: CreditLot[], now: Date): AccountView {
  const live = lots.filter((lot) => lot.expiresAt > now);
  return {
    account: { ...account, ...spendOf(account, now) },
    lots: live,
    balanceNano: balanceOf(live, now) - account.debtNano,
  };
}

/**
 * Post-paid spending (Debit): takes what the lots hold, earliest expiry first, up to amountNano;
 * `shortfallNano` is what they could not cover.
 */
export function planSpendUpTo(
  lots: readonly CreditLot[],
  amountNano: bigint,
  now: Date,
): { steps: Array<{ lotId: bigint; takeNano: bigint }>; shortfallNano: bigint } {
  const available = balanceOf(
    lots.filter((lot) => lot.remainingNano > 0n),
    now,
  );
  const covered = available < amountNano ? available : amountNano;
  return { steps: planSpend(lots, covered, now) ?? [], shortfallNano: amountNano - covered };
}

/**
 * Which lots pay for amountNano: the earliest expiry first, a lot counting only while
 * now < expires_at. Undefined when the unexpired lots cannot cover it.
 */
export function planSpend(
  lots: readonly CreditLot[],
  amountNano: bigint,
  now: Date,
): Array<{ lotId: bigint; takeNano: bigint }> | undefined {
  const plan: Array<{ lotId: bigint; takeNano: bigint }> = [];
  let left = amountNano;
  const spendable = lots
    .filter((lot) => lot.expiresAt > now && lot.remainingNano > 0n)
    .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || Number(a.id - b.id));
  for (const lot of spendable) {
    if (left === 0n) {
      break;
    }
    const take = lot.remainingNano < left ? lot.remainingNano : left;
    plan.push({ lotId: lot.id, takeNano: take });
    left -= take;
  }
  return left === 0n ? plan : undefined;
}

export const DAY_MS = 86_400_000;

export function expiryAfterDays(now: Date, days: number): Date {
  return new Date(now.getTime() + days * DAY_MS);
}
