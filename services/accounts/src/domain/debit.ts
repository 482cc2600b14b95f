import { AppError, ErrorCode } from '@gw/kit';
import { planSpendUpTo, viewOf } from './lots.js';
import type { DebitTarget } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';
import { applySpend } from './spend.js';

export interface DebitInput {
  accountId: bigint;
  amountNano: bigint;
  /** The usage event id: the same id charges once. */
  idempotencyKey: string;
}

export interface DebitResult {
  ledgerId: bigint;
  /** The account actually charged (the nearest live ancestor when the account was deleted). */
  accountId: bigint;
  balanceNano: bigint;
  spendBlocked: boolean;
  replayed: boolean;
}

/**
 * Charges one usage event, post-paid (docs/decisions.md §1): never refused for lack of credit.
 * The lots pay what they hold, earliest expiry first; the rest becomes debt_nano on the account,
 * so the balance (lots − debt) goes below zero and every later credit settles the debt first.
 * Conservation stays exact: Σ mint = Σ lot remainders − Σ debt + Σ usage + Σ fees.
 *
 * Idempotent on (key, kind usage) across accounts: the same key and amount replay the first
 * ledger id; the same key with another amount is a conflict and charges nothing. Tracks the UTC
 * day and month spend; reaching HardLimit sets spend_blocked (announced on gw.account.changed);
 * the month's first SoftLimit crossing enqueues one alert mail. Usage of a deleted account is
 * charged to its nearest live ancestor (docs/decisions.md §4).
 */
/** True when a debit of amountNano took the balance from above the floor to at or below it. */
export function crossedFloor(balanceAfterNano: bigint, amountNano: bigint, floorNano: bigint): boolean {
  return balanceAfterNano <= floorNano && balanceAfterNano + amountNano > floorNano;
}

export async function debit(deps: AccountsDeps, input: DebitInput): Promise<DebitResult> {
  const { amountNano, idempotencyKey } = input;
  if (amountNano < 0n) {
    throw new AppError(ErrorCode.InvalidRequest, 'amount must not be negative');
  }
  if (idempotencyKey === '' || idempotencyKey.length > 200) {
    throw new AppError(ErrorCode.InvalidRequest, 'idempotency_key must be 1-200 characters');
  }
  const now = deps.clock.now();
  const outcome = await deps.store.transaction(async (tx) => {
    let target: DebitTarget | undefined = await tx.accounts.lockForDebit(input.accountId);
    for (let hops = 0; target?.deleted && target.account.parentId !== null && hops < 64; hops++) {
      target = await tx.accounts.lockForDebit(target.account.parentId);
    }
    if (!target || target.deleted) {
      throw new AppError(ErrorCode.NotFound, 'no such account');
    }
    const { account } = target;
    // The row lock serialises debits of one account, so a duplicate sees the first row here.
    const existing = await tx.ledger.find(idempotencyKey, 'usage');
    if (existing) {
      if (existing.amountNano !== -amountNano) {
        throw new AppError(ErrorCode.Conflict, 'this usage event was already charged with another amount', {
          idempotencyKey,
        });
      }
      const lots = await tx.lots.live([existing.accountId], now);
      return {
        ledgerId: existing.id,
        accountId: existing.accountId,
        balanceNano: existing.accountId === account.id ? viewOf(account, lots, now).balanceNano : 0n,
        spendBlocked: account.spendBlocked,
        replayed: true,
        blockedNow: false,
        dailyReachedNow: false,
        softAlertMonth: undefined,
      };
    }
    const ledgerId = await tx.ledger.insert({
      idempotencyKey,
      kind: 'usage',
      accountId: account.id,
      counterpartyId: null,
      amountNano: -amountNano,
    });
    if (ledgerId === undefined) {
      throw new AppError(ErrorCode.Conflict, 'this usage event was already charged');
    }
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
      ledgerId,
      accountId: account.id,
      balanceNano: viewOf(after, lots, now).balanceNano,
      spendBlocked: spend.next.spendBlocked,
      replayed: false,
      blockedNow: spend.blockedNow,
      dailyReachedNow: spend.dailyReachedNow,
      softAlertMonth: spend.softAlertMonth,
    };
  });
  // The edges admit AI calls from cached accounts: each crossing tells them to look again.
  if (outcome.blockedNow) {
    deps.events.accountChanged(outcome.accountId, 'spend_blocked');
  } else if (outcome.dailyReachedNow) {
    deps.events.accountChanged(outcome.accountId, 'daily_limit');
  } else if (
    !outcome.replayed &&
    crossedFloor(outcome.balanceNano, amountNano, deps.policy.apiBalanceFloorNano)
  ) {
    // The edges admit AI calls from a cached balance; this one just went to or below the floor.
    deps.events.accountChanged(outcome.accountId, 'balance_low');
  }
  if (outcome.softAlertMonth) {
    await deps.alerts.softLimitReached(outcome.accountId, outcome.softAlertMonth);
  }
  const { blockedNow: _blocked, dailyReachedNow: _daily, softAlertMonth: _month, ...result } = outcome;
  return result;
}
