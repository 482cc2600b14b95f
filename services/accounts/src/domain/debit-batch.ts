import { AppError, ErrorCode } from '@gw/kit';
import { chargeKeyOf } from './auto-quota.js';
import { announceCharges, chargeLocked, lockChargeTargets } from './charge.js';
import { debitInputProblem } from './debit.js';
import type { DebitTarget } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';
import type { LedgerRow } from './ports/ledger.js';

export interface DebitBatchItem {
  accountId: bigint;
  amountNano: bigint;
  /** The usage event id: the same id charges once, in this batch or any other. */
  idempotencyKey: string;
  /** The model, kept on the ledger row for whoever reads it. */
  description: string;
}

export type DebitItemOutcome = 'charged' | 'replayed' | 'conflict' | 'no_account';

export interface DebitBatchResult {
  idempotencyKey: string;
  outcome: DebitItemOutcome;
  /** The account charged (its nearest live ancestor when deleted); 0 when none. */
  chargedAccountId: bigint;
}

/** At most this many items per call: one transaction must stay short. */
export const MAX_DEBIT_BATCH = 5000;

/**
 * Charges many usage events in ONE transaction, each exactly as `debit` would (post-paid,
 * idempotent on its key, a deleted account's usage on its nearest live ancestor), so billing
 * pays one commit per batch instead of one per event. Accounts are locked in id order, so two
 * batches never wait on each other in a cycle. The new amounts of one account are summed and
 * taken from its lots once: the same lots, debt and spend as taking them one by one at the same
 * instant. An item that cannot be charged (the key already charged with another amount, no live
 * account) is answered as such and moves nothing; the rest of the batch still commits.
 */
export async function debitBatch(deps: AccountsDeps, items: DebitBatchItem[]): Promise<DebitBatchResult[]> {
  if (items.length > MAX_DEBIT_BATCH) {
    throw new AppError(ErrorCode.InvalidRequest, `items: at most ${MAX_DEBIT_BATCH} per call`);
  }
  for (const item of items) {
    const problem = debitInputProblem(item.amountNano, item.idempotencyKey);
    if (problem) {
      throw new AppError(ErrorCode.InvalidRequest, problem);
    }
  }
  const now = deps.clock.now();
  const { results, charges } = await deps.store.transaction(async (tx) => {
    const targets = await lockChargeTargets(
      tx,
      items.map((item) => item.accountId),
    );
    // Keys charged before, read once; a key is unique per kind, so this is what `debit` checks.
    const recorded = await tx.ledger.findMany(
      items.map((item) => item.idempotencyKey),
      'usage',
    );
    const firstOfKey = new Map<string, DebitBatchResult>();
    const newAmounts = new Map<bigint, { target: DebitTarget; amountNano: bigint }>();
    const rows: LedgerRow[] = [];
    const answers: DebitBatchResult[] = [];
    for (const item of items) {
      // A key repeated inside the batch answers like its first item and moves nothing more.
      const first = firstOfKey.get(item.idempotencyKey);
      if (first) {
        answers.push(first);
        continue;
      }
      const target = targets.get(item.accountId);
      const before = recorded.get(item.idempotencyKey);
      const outcome: DebitItemOutcome = !target
        ? 'no_account'
        : before
          ? before.amountNano === -item.amountNano
            ? 'replayed'
            : 'conflict'
          : 'charged';
      const answer = {
        idempotencyKey: item.idempotencyKey,
        outcome,
        chargedAccountId: target?.account.id ?? 0n,
      };
      firstOfKey.set(item.idempotencyKey, answer);
      answers.push(answer);
      if (target && outcome === 'charged') {
        const accountId = target.account.id;
        rows.push({
          idempotencyKey: item.idempotencyKey,
          kind: 'usage',
          accountId,
          counterpartyId: null,
          amountNano: -item.amountNano,
          description: item.description,
        });
        const sum = newAmounts.get(accountId) ?? { target, amountNano: 0n };
        newAmounts.set(accountId, { target, amountNano: sum.amountNano + item.amountNano });
      }
    }
    await tx.ledger.insertMany(rows, now);
    return { results: answers, charges: await chargeLocked(tx, [...newAmounts.values()], now) };
  });
  await announceCharges(deps, charges, chargeKeyOf(items.map((item) => item.idempotencyKey)));
  return results;
}
