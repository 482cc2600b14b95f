import { AppError, ErrorCode } from '@gw/kit';
import { describeKey } from './api-key.js';
import type { AccountsDeps } from './ports/deps.js';

/**
 * Sets a new API key on an account in one transaction and announces the old hash on
 * gw.account.changed.<id>, so every edge replica drops it at once. Returns the new key's prefix
 * and last four characters for the operation log.
 */
export async function replaceKey(
  deps: Pick<AccountsDeps, 'store' | 'events' | 'clock'>,
  accountId: bigint,
  key: string,
): Promise<{ prefix: string; last4: string }> {
  const described = describeKey(key);
  const oldHash = await deps.store.transaction(async (tx) => {
    const locked = await tx.accounts.lock(accountId);
    if (!locked) {
      throw new AppError(ErrorCode.Unauthenticated, 'the calling account no longer exists');
    }
    if (await tx.accounts.keyHashTaken(described.hash)) {
      throw new AppError(ErrorCode.InvalidRequest, 'this key cannot be used');
    }
    await tx.accounts.setKey(locked.id, described, deps.clock.now());
    return locked.keyHash;
  });
  deps.events.accountChanged(accountId, 'rotated', oldHash);
  return { prefix: described.prefix, last4: described.last4 };
}
