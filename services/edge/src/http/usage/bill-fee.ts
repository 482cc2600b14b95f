import { createHash } from 'node:crypto';
import { currentRequestId, newId } from '@gw/kit';
import type { Request, Response } from 'express';
import type { EdgeDeps } from '../../deps.js';
import { idempotencyOf, markReplay } from '../idempotency.js';

/**
 * Charges a long bill's query fee to the caller, through accounts like a usage charge
 * (one ledger row, counted in the day's and month's spend; docs/decisions.md §18), but not
 * post-paid: accounts refuses it, charging nothing, when the balance does not cover it or the
 * account is disabled or suspended, so a paid query never pushes an account into debt.
 * The ledger key is the caller with the request's `Idempotency-Key` when it has one, so asking
 * again with the same key charges nothing more (answered with `Idempotent-Replayed: true`);
 * without one the request id names it, so only a retry inside the gateway is free.
 */
export async function chargeBillFee(
  deps: EdgeDeps,
  req: Request,
  res: Response,
  callerId: bigint,
  feeNano: bigint,
): Promise<void> {
  if (feeNano === 0n) {
    return;
  }
  const { idempotencyKey } = idempotencyOf(req);
  const named =
    idempotencyKey === '' ? `request:${currentRequestId() ?? newId('request')}` : `key:${idempotencyKey}`;
  const digest = createHash('sha256').update(named).digest('hex').slice(0, 40);
  const charged = await deps.accounts.debit({
    accountId: callerId,
    amountNano: feeNano,
    idempotencyKey: `bill-fee:${callerId}:${digest}`,
    requireCover: true,
  });
  markReplay(res, charged.replayed);
}
