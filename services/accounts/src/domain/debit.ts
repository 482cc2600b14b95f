import { AppError, ErrorCode, formatUsd } from '@gw/kit';
import { chargeKeyOf } from './auto-quota.js';
import { announceCharges, chargeLocked, lockChargeTargets } from './charge.js';
import { viewOf } from './lots.js';
import type { AccountRecord } from './model.js';
import type { AccountsDeps, AccountsTx } from './ports/deps.js';

export { crossedFloor } from './charge.js';

export interface DebitInput {
  accountId: bigint;
  amountNano: bigint;
  /** The usage event id: the same id charges once. */
  idempotencyKey: string;
  /**
   * A paid query rather than usage (the bill's fee, docs/decisions.md §18): refused, charging
   * nothing, when the account is disabled or suspended or its balance does not cover the amount.
   */
  requireCover?: boolean;
}

export interface DebitResult {
  ledgerId: bigint;
  /** The account actually charged (the nearest live ancestor when the account was deleted). */
  accountId: bigint;
  balanceNano: bigint;
  spendBlocked: boolean;
  replayed: boolean;
}

/** The checks a usage charge's amount and key pass, for Debit and each DebitBatch item. */
export function debitInputProblem(amountNano: bigint, idempotencyKey: string): string | undefined {
  if (amountNano < 0n) {
    return 'amount must not be negative';
  }
  if (idempotencyKey === '' || idempotencyKey.length > 200) {
    return 'idempotency_key must be 1-200 characters';
  }
  return undefined;
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
export async function debit(deps: AccountsDeps, input: DebitInput): Promise<DebitResult> {
  const { amountNano, idempotencyKey } = input;
  const problem = debitInputProblem(amountNano, idempotencyKey);
  if (problem) {
    throw new AppError(ErrorCode.InvalidRequest, problem);
  }
  const now = deps.clock.now();
  const outcome = await deps.store.transaction(async (tx) => {
    const target = (await lockChargeTargets(tx, [input.accountId])).get(input.accountId);
    if (!target) {
      throw new AppError(ErrorCode.NotFound, 'no such account');
    }
    const { account } = target;
    // The row lock serialises debits of one account, so a duplicate sees the first row here.
    const existing = await tx.ledger.find(idempotencyKey, 'usage');
    if (existing) {
      if (existing.amountNano !== -amountNano) {
        throw new AppError(ErrorCode.Conflict, 'this usage event was already charged with another amount');
      }
      const lots = await tx.lots.live([existing.accountId], now);
      return {
        ledgerId: existing.id,
        charge: undefined,
        accountId: existing.accountId,
        balanceNano: existing.accountId === account.id ? viewOf(account, lots, now).balanceNano : 0n,
        spendBlocked: account.spendBlocked,
      };
    }
    if (input.requireCover) {
      await assertCovers(tx, account, amountNano, now);
    }
    const ledgerId = await tx.ledger.insert(
      {
        idempotencyKey,
        kind: 'usage',
        accountId: account.id,
        counterpartyId: null,
        amountNano: -amountNano,
      },
      now,
    );
    if (ledgerId === undefined) {
      throw new AppError(ErrorCode.Conflict, 'this usage event was already charged');
    }
    const [charge] = await chargeLocked(tx, [{ target, amountNano }], now);
    if (!charge) {
      throw new Error('chargeLocked answered no outcome');
    }
    return { ledgerId, charge, ...charge };
  });
  if (outcome.charge) {
    await announceCharges(deps, [outcome.charge], chargeKeyOf([idempotencyKey]));
  }
  return {
    ledgerId: outcome.ledgerId,
    accountId: outcome.accountId,
    balanceNano: outcome.balanceNano,
    spendBlocked: outcome.spendBlocked,
    replayed: outcome.charge === undefined,
  };
}

/** A paid query is taken only from a live account whose balance covers it (root mints: exempt). */
async function assertCovers(
  tx: AccountsTx,
  account: AccountRecord,
  amountNano: bigint,
  now: Date,
): Promise<void> {
  if (account.isRoot) {
    return;
  }
  if (!account.status || account.suspended) {
    throw new AppError(
      ErrorCode.Forbidden,
      `this account is ${account.suspended ? 'suspended' : 'disabled'}: paid queries are refused`,
    );
  }
  const { balanceNano } = viewOf(account, await tx.lots.live([account.id], now), now);
  if (balanceNano < amountNano) {
    throw new AppError(
      ErrorCode.InsufficientCredit,
      `this query costs ${formatUsd(amountNano)} USD and the balance is ${formatUsd(balanceNano)} USD`,
    );
  }
}
