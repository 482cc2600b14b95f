import { createHash } from 'node:crypto';
import { AppError, ErrorCode } from '@gw/kit';
import { getAccount } from './get-account.js';
import type { AccountsDeps } from './ports/deps.js';
import { updateAccount } from './update-account.js';

export interface TransferCreditInput {
  callerId: bigint;
  identifier: string;
  /** Positive: caller → target; negative: target → caller. */
  amountNano: bigint;
  days: number | undefined;
  idempotencyKey: string;
  /** The call's request id: a retried call moves the credit once. */
  requestId?: string;
}

export interface TransferredCredit {
  callerBalanceNano: bigint;
  targetBalanceNano: bigint;
}

/**
 * Moves credit between the caller and an account it manages, and nothing else: the same
 * movement as an update carrying only CreditGranted, so both paths share one set of rules.
 */
export async function transferCredit(
  deps: AccountsDeps,
  input: TransferCreditInput,
): Promise<TransferredCredit> {
  if (input.amountNano === 0n) {
    throw new AppError(ErrorCode.InvalidRequest, 'amount must not be zero');
  }
  const target = await updateAccount(deps, {
    callerId: input.callerId,
    identifier: input.identifier,
    fields: {},
    creditGrantedNano: input.amountNano,
    days: input.days,
    idempotencyKey: input.idempotencyKey,
    // A replayed key must carry the same movement: the request hash pins target, amount and days.
    requestHash: createHash('sha256')
      .update(`transfer:${input.identifier}:${input.amountNano}:${input.days ?? ''}`)
      .digest('hex'),
    requestId: input.requestId,
  });
  const caller = await getAccount(deps, {
    callerId: input.callerId,
    identifier: String(input.callerId),
    includeSelf: true,
  });
  return { callerBalanceNano: caller.balanceNano, targetBalanceNano: target.balanceNano };
}
