import { AppError, ErrorCode } from '@gw/kit';
import type { KeyUse } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';

/** How many uses one batch may carry; an edge flushes far fewer (one per account seen). */
export const MAX_KEY_USES_PER_BATCH = 10_000;

/**
 * Records when keys were last used, from batches the edge replicas collect: one write per batch
 * instead of one per request. Uses of a key that has since been rotated are ignored.
 */
export async function recordKeyUse(
  deps: Pick<AccountsDeps, 'store'>,
  uses: readonly KeyUse[],
): Promise<number> {
  if (uses.length > MAX_KEY_USES_PER_BATCH) {
    throw new AppError(ErrorCode.InvalidRequest, `at most ${MAX_KEY_USES_PER_BATCH} key uses per batch`);
  }
  if (uses.some((use) => Number.isNaN(use.usedAt.getTime()) || !/^[0-9a-f]{64}$/.test(use.keyHash))) {
    throw new AppError(ErrorCode.InvalidRequest, 'each key use needs a SHA-256 key hash and an ISO time');
  }
  return deps.store.accounts.recordKeyUses(uses);
}
