import { createHash } from 'node:crypto';
import { AppError, formatUsd } from '@gw/kit';
import { DEFAULT_CREDIT_DAYS, moveCredit } from './credit.js';
import { viewOf } from './lots.js';
import type { AccountRecord } from './model.js';
import type { AccountsDeps } from './ports/deps.js';
import { spendOf } from './spend.js';

/**
 * AutoQuota (docs/decisions.md §24): an account whose balance fell below half its AutoQuota is
 * topped up by its parent. True when a charge leaving `balanceNano` calls for a top-up.
 */
export function wantsTopUp(account: AccountRecord, balanceNano: bigint): boolean {
  return account.parentId !== null && account.autoQuotaNano > 0n && balanceNano * 2n < account.autoQuotaNano;
}

/**
 * What the parent gives: back up to AutoQuota, but never more than the account can still spend
 * this month under its HardLimit (month spend + balance stays at most HardLimit). 0: nothing.
 */
export function topUpAmount(account: AccountRecord, balanceNano: bigint, now: Date): bigint {
  if (!wantsTopUp(account, balanceNano)) {
    return 0n;
  }
  let target = account.autoQuotaNano;
  if (account.hardLimitNano > 0n) {
    const room = account.hardLimitNano - spendOf(account, now).monthSpendNano;
    target = room < target ? room : target;
  }
  return target > balanceNano ? target - balanceNano : 0n;
}

/** Names one charge or batch by its usage keys: the same batch answered again is the same charge. */
export function chargeKeyOf(idempotencyKeys: readonly string[]): string {
  return createHash('sha256')
    .update([...idempotencyKeys].sort().join('\n'))
    .digest('hex')
    .slice(0, 32);
}

type TopUp =
  | { kind: 'none' }
  | {
      kind: 'topped_up';
      child: AccountRecord;
      parent: AccountRecord;
      amountNano: bigint;
      balanceNano: bigint;
    }
  | { kind: 'unpaid'; child: AccountRecord; parent: AccountRecord; amountNano: bigint };

/**
 * After a charge committed: tops each named account up from its parent when its balance is below
 * half its AutoQuota, once per charge (`chargeKey` names the charge or the batch: the ledger key
 * `auto-quota:<account>:<chargeKey>` moves credit once however often the charge is answered). The
 * parent and the account are locked top-down, as a recharge locks them, and the rule is read again
 * under the locks, so concurrent charges top up no more than one of them needs.
 */
export async function topUpAutoQuotas(
  deps: AccountsDeps,
  accountIds: readonly bigint[],
  chargeKey: string,
): Promise<void> {
  for (const accountId of accountIds) {
    const outcome = await topUpOne(deps, accountId, `auto-quota:${accountId}:${chargeKey}`);
    await announce(deps, outcome, chargeKey);
  }
}

async function topUpOne(deps: AccountsDeps, accountId: bigint, idempotencyKey: string): Promise<TopUp> {
  const now = deps.clock.now();
  try {
    return await deps.store.transaction(async (tx): Promise<TopUp> => {
      const seen = await tx.accounts.findById(accountId);
      if (!seen || seen.parentId === null) {
        return { kind: 'none' };
      }
      const parent = await tx.accounts.lock(seen.parentId);
      const child = await tx.accounts.lock(accountId);
      if (!parent || !child) {
        return { kind: 'none' };
      }
      const balanceNano = viewOf(child, await tx.lots.live([child.id], now), now).balanceNano;
      const amountNano = topUpAmount(child, balanceNano, now);
      if (amountNano === 0n) {
        return { kind: 'none' };
      }
      if (!parent.isRoot) {
        const parentBalance = viewOf(parent, await tx.lots.live([parent.id], now), now).balanceNano;
        if (parentBalance < amountNano) {
          return { kind: 'unpaid', child, parent, amountNano };
        }
      }
      const moved = await moveCredit(tx, {
        from: parent,
        to: child,
        amountNano,
        days: DEFAULT_CREDIT_DAYS,
        idempotencyKey,
        now,
        receiverBalanceNano: balanceNano,
      });
      return moved
        ? { kind: 'topped_up', child, parent, amountNano, balanceNano: balanceNano + amountNano }
        : { kind: 'none' };
    });
  } catch (error) {
    // A refusal (the balance would pass its maximum) leaves the account as it is: the charge stands.
    if (error instanceof AppError) {
      return { kind: 'none' };
    }
    throw error;
  }
}

async function announce(deps: AccountsDeps, outcome: TopUp, chargeKey: string): Promise<void> {
  if (outcome.kind === 'none') {
    return;
  }
  const { child, parent, amountNano } = outcome;
  const quota = formatUsd(child.autoQuotaNano);
  if (outcome.kind === 'topped_up') {
    deps.events.accountChanged(child.id, 'updated');
    deps.events.audit({
      action: 'update_user',
      operatorId: parent.id,
      targetId: child.id,
      details: `AutoQuota recharged ${formatUsd(amountNano)} USD`,
      ipAddress: '',
    });
    await deps.alerts.billingNotice(
      child.id,
      `Account ${child.name} was recharged`,
      `Its balance fell below half its AutoQuota of ${quota} USD, so ${parent.name} recharged it with ${formatUsd(amountNano)} USD. The balance is now ${formatUsd(outcome.balanceNano)} USD.`,
      `auto-quota-${child.id}-${chargeKey}`,
    );
    return;
  }
  // One notice a day per account while its parent cannot pay, not one per charge.
  const day = deps.clock.now().toISOString().slice(0, 10);
  const text = `The balance of ${child.name} fell below half its AutoQuota of ${quota} USD, but ${parent.name} cannot pay the ${formatUsd(amountNano)} USD recharge. Recharge ${parent.name} or ${child.name}.`;
  for (const accountId of [parent.id, child.id]) {
    await deps.alerts.billingNotice(
      accountId,
      `AutoQuota recharge of ${child.name} not paid`,
      text,
      `auto-quota-unpaid-${child.id}-${accountId}-${day}`,
    );
  }
}
