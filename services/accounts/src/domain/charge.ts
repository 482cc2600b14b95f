import { planSpendUpTo, viewOf } from './lots.js';
import type { DebitTarget } from './ports/accounts.js';
import type { AccountsDeps, AccountsTx } from './ports/deps.js';
import { applySpend } from './spend.js';

/** What one charge did to the account it landed on: the crossings the edges must learn about. */
export interface ChargeOutcome {
  accountId: bigint;
  balanceNano: bigint;
  spendBlocked: boolean;
  blockedNow: boolean;
  dailyReachedNow: boolean;
  /** 'YYYY-MM' when this charge was the month's first SoftLimit crossing. */
  softAlertMonth: string | undefined;
}

/**
 * Locks the account a usage charge lands on: the account itself, or when it was deleted its
 * nearest live ancestor (docs/decisions.md §4). Undefined when there is none.
 */
export async function lockChargeTarget(tx: AccountsTx, accountId: bigint): Promise<DebitTarget | undefined> {
  let target: DebitTarget | undefined = await tx.accounts.lockForDebit(accountId);
  for (let hops = 0; target?.deleted && target.account.parentId !== null && hops < 64; hops++) {
    target = await tx.accounts.lockForDebit(target.account.parentId);
  }
  return target && !target.deleted ? target : undefined;
}

/**
 * Takes amountNano from a locked account, post-paid (docs/decisions.md §1): its lots pay what
 * they hold, earliest expiry first, the rest becomes debt; the UTC day and month spend grow and
 * HardLimit, DailyLimit and the month's first SoftLimit crossing are noted. The caller has
 * already written the ledger row(s) for this amount in the same transaction.
 */
export async function chargeLocked(
  tx: AccountsTx,
  target: DebitTarget,
  amountNano: bigint,
  now: Date,
): Promise<ChargeOutcome> {
  const { account } = target;
  const plan = planSpendUpTo(await tx.lots.lockSpendable(account.id, now), amountNano, now);
  for (const step of plan.steps) {
    if (!(await tx.lots.take(step.lotId, step.takeNano))) {
      throw new Error('a locked lot did not hold its planned amount');
    }
  }
  if (plan.shortfallNano > 0n) {
    await tx.accounts.addDebt(account.id, plan.shortfallNano);
  }
  const spend = applySpend({ ...account, softAlertMonth: target.softAlertMonth }, amountNano, now);
  await tx.accounts.setSpend(account.id, spend.next);
  const lots = await tx.lots.live([account.id], now);
  const after = { ...account, debtNano: account.debtNano + plan.shortfallNano };
  return {
    accountId: account.id,
    balanceNano: viewOf(after, lots, now).balanceNano,
    spendBlocked: spend.next.spendBlocked,
    blockedNow: spend.blockedNow,
    dailyReachedNow: spend.dailyReachedNow,
    softAlertMonth: spend.softAlertMonth,
  };
}

/** True when a debit of amountNano took the balance from above the floor to at or below it. */
export function crossedFloor(balanceAfterNano: bigint, amountNano: bigint, floorNano: bigint): boolean {
  return balanceAfterNano <= floorNano && balanceAfterNano + amountNano > floorNano;
}

/**
 * After the transaction committed: the edges admit AI calls from cached accounts, so each
 * crossing tells them to look again; the SoftLimit alert mail is enqueued once a month.
 */
export async function announceCharge(
  deps: AccountsDeps,
  outcome: ChargeOutcome,
  amountNano: bigint,
): Promise<void> {
  if (outcome.blockedNow) {
    deps.events.accountChanged(outcome.accountId, 'spend_blocked');
  } else if (outcome.dailyReachedNow) {
    deps.events.accountChanged(outcome.accountId, 'daily_limit');
  } else if (crossedFloor(outcome.balanceNano, amountNano, deps.policy.apiBalanceFloorNano)) {
    deps.events.accountChanged(outcome.accountId, 'balance_low');
  }
  if (outcome.softAlertMonth) {
    await deps.alerts.softLimitReached(outcome.accountId, outcome.softAlertMonth);
  }
}
