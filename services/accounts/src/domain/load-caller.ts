import { AppError, ErrorCode } from '@gw/kit';
import { assertActive } from './access.js';
import type { AccountRecord } from './model.js';
import type { AccountsDeps } from './ports/deps.js';

/** The caller as stored now (never a cached copy), refused when disabled or gone. */
export async function loadCaller(
  deps: Pick<AccountsDeps, 'store'>,
  callerId: bigint,
): Promise<AccountRecord> {
  const caller = await deps.store.accounts.findById(callerId);
  if (!caller) {
    throw new AppError(ErrorCode.Unauthenticated, 'the calling account no longer exists');
  }
  assertActive(caller);
  return caller;
}
