import { AppError, ErrorCode } from '@gw/kit';
import { assertMayWrite } from './access.js';
import { loadAncestors } from './inheritance.js';
import type { AccountRecord } from './model.js';
import type { AccountsDeps } from './ports/deps.js';

/**
 * The caller as stored now (never a cached copy), refused when gone, and when it or an ancestor
 * is disabled or suspended unless it only reads.
 */
export async function loadCaller(
  deps: Pick<AccountsDeps, 'store'>,
  callerId: bigint,
  use: 'read' | 'write' = 'write',
): Promise<AccountRecord> {
  const caller = await deps.store.accounts.findById(callerId);
  if (!caller) {
    throw new AppError(ErrorCode.Unauthenticated, 'the calling account no longer exists');
  }
  if (use === 'write') {
    assertMayWrite(caller, await loadAncestors(deps.store.accounts, caller));
  }
  return caller;
}
