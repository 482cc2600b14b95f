import { topUpAutoQuotas, wantsTopUp } from './auto-quota.js';
import { planSpendUpTo, viewOf } from './lots.js';
import type { CreditLot } from './model.js';
import type { AccountCharge, DebitTarget } from './ports/accounts.js';
import type { AccountsDeps, AccountsTx } from './ports/deps.js';
import type { LotTake } from './ports/lots.js';
import { applySpend } from './spend.js';

/** What one charge did to the account it landed on: the crossings the edges must learn about. */
export interface ChargeOutcome {
  accountId: bigint;
  /** What this charge took. */
  amountNano: bigint;
  balanceNano: bigint;
  spendBlocked: boolean;
  blockedNow: boolean;
  dailyReachedNow: boolean;
  /** 'YYYY-MM' when this charge was the month's first SoftLimit crossing. */
  softAlertMonth: string | undefined;
  /** The balance fell below half the account's AutoQuota: its parent tops it up after the commit. */
  wantsTopUp: boolean;
}

/** A deleted account's usage climbs at most this many deleted ancestors to a live one. */
const MAX_HOPS = 64;

/**
 * Locks the accounts usage charges land on: each account itself, or when it was deleted its
 * nearest live ancestor (docs/decisions.md §4). One statement per level climbed, each locking in
 * id order. The answer maps each asked id to its target; ids without one are left out, and ids
 * that land on the same account share one target.
 */
export async function lockChargeTargets(
  tx: AccountsTx,
  accountIds: readonly bigint[],
): Promise<Map<bigint, DebitTarget>> {
  const locked = new Map<bigint, DebitTarget>();
  let wanted = [...new Set(accountIds)];
  for (let hops = 0; wanted.length > 0 && hops <= MAX_HOPS; hops++) {
    const rows = await tx.accounts.lockForDebit(wanted);
    for (const row of rows) {
      locked.set(row.account.id, row);
    }
    const parents = rows.flatMap((row) =>
      row.deleted && row.account.parentId !== null ? [row.account.parentId] : [],
    );
    wanted = [...new Set(parents)].filter((id) => !locked.has(id));
  }
  const targets = new Map<bigint, DebitTarget>();
  for (const id of accountIds) {
    let target = locked.get(id);
    for (let hops = 0; target?.deleted && target.account.parentId !== null && hops < MAX_HOPS; hops++) {
      target = locked.get(target.account.parentId);
    }
    if (target && !target.deleted) {
      targets.set(id, target);
    }
  }
  return targets;
}

/**
 * Takes each amount from its locked account, post-paid (docs/decisions.md §1): the account's lots
 * pay what they hold, earliest expiry first, the rest becomes debt; the UTC day and month spend
 * grow and HardLimit, DailyLimit and the month's first SoftLimit crossing are noted. However many
 * accounts, three statements: lock their lots, take from them, write their rows. The caller has
 * already written the ledger row(s) for these amounts in the same transaction, and names each
 * account once.
 */
export async function chargeLocked(
  tx: AccountsTx,
  charges: ReadonlyArray<{ target: DebitTarget; amountNano: bigint }>,
  now: Date,
): Promise<ChargeOutcome[]> {
  const ids = charges.map((charge) => charge.target.account.id);
  if (new Set(ids).size !== ids.length) {
    throw new Error('chargeLocked names an account twice');
  }
  const lotsOf = new Map<bigint, CreditLot[]>();
  for (const lot of await tx.lots.lockSpendable(ids, now)) {
    lotsOf.set(lot.accountId, [...(lotsOf.get(lot.accountId) ?? []), lot]);
  }
  const takes: LotTake[] = [];
  const writes: AccountCharge[] = [];
  const outcomes = charges.map(({ target, amountNano }): ChargeOutcome => {
    const { account } = target;
    const lots = lotsOf.get(account.id) ?? [];
    const plan = planSpendUpTo(lots, amountNano, now);
    const spend = applySpend({ ...account, softAlertMonth: target.softAlertMonth }, amountNano, now);
    takes.push(...plan.steps);
    writes.push({ accountId: account.id, spend: spend.next, addDebtNano: plan.shortfallNano });
    const after = { ...account, debtNano: account.debtNano + plan.shortfallNano };
    const balanceNano = viewOf(after, lotsAfter(lots, plan.steps), now).balanceNano;
    return {
      accountId: account.id,
      amountNano,
      balanceNano,
      spendBlocked: spend.next.spendBlocked,
      blockedNow: spend.blockedNow,
      dailyReachedNow: spend.dailyReachedNow,
      softAlertMonth: spend.softAlertMonth,
      wantsTopUp: wantsTopUp(account, balanceNano),
    };
  });
  if (!(await tx.lots.take(takes))) {
    throw new Error('a locked lot did not hold its planned amount');
  }
  await tx.accounts.applyCharges(writes, now);
  return outcomes;
}

/** The lots as they are once the takes are written. */
function lotsAfter(lots: readonly CreditLot[], takes: readonly LotTake[]): CreditLot[] {
  const taken = new Map(takes.map((take) => [take.lotId, take.takeNano]));
  return lots.map((lot) => ({ ...lot, remainingNano: lot.remainingNano - (taken.get(lot.id) ?? 0n) }));
}

/** True when a debit of amountNano took the balance from above the floor to at or below it. */
export function crossedFloor(balanceAfterNano: bigint, amountNano: bigint, floorNano: bigint): boolean {
  return balanceAfterNano <= floorNano && balanceAfterNano + amountNano > floorNano;
}

/**
 * After the transaction committed: the edges admit AI calls from cached accounts, so each
 * crossing tells them to look again; the SoftLimit alert mail is enqueued once a month; an
 * account below half its AutoQuota is topped up by its parent, once per charge (`chargeKey`).
 */
export async function announceCharges(
  deps: AccountsDeps,
  outcomes: readonly ChargeOutcome[],
  chargeKey: string,
): Promise<void> {
  for (const outcome of outcomes) {
    await announceCharge(deps, outcome);
  }
  const topUps = outcomes.filter((outcome) => outcome.wantsTopUp).map((outcome) => outcome.accountId);
  if (topUps.length > 0) {
    await topUpAutoQuotas(deps, topUps, chargeKey);
  }
}

async function announceCharge(deps: AccountsDeps, outcome: ChargeOutcome): Promise<void> {
  if (outcome.blockedNow) {
    deps.events.accountChanged(outcome.accountId, 'spend_blocked');
  } else if (outcome.dailyReachedNow) {
    deps.events.accountChanged(outcome.accountId, 'daily_limit');
  } else if (crossedFloor(outcome.balanceNano, outcome.amountNano, deps.policy.apiBalanceFloorNano)) {
    deps.events.accountChanged(outcome.accountId, 'balance_low');
  }
  if (outcome.softAlertMonth) {
    await deps.alerts.softLimitReached(outcome.accountId, outcome.softAlertMonth);
  }
}
