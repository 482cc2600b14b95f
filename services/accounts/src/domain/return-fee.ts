import { usd } from '@gw/kit';

/** The fee on credit going back up the tree: a delete's refund and a claw-back (docs/decisions.md §4). */
export const RETURN_FEE_NANO = usd('0.2');

/** Fee = min(0.2 USD, amount); nothing is charged on an empty or indebted remainder. */
export function refundOf(remainderNano: bigint): { refundNano: bigint; feeNano: bigint } {
  if (remainderNano <= 0n) {
    return { refundNano: 0n, feeNano: 0n };
  }
  const feeNano = remainderNano < RETURN_FEE_NANO ? remainderNano : RETURN_FEE_NANO;
  return { refundNano: remainderNano - feeNano, feeNano };
}
