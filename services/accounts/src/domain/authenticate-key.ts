import { AppError, ErrorCode } from '@gw/kit';
import { inheritedFrom, loadAncestors } from './inheritance.js';
import { viewOf } from './lots.js';
import type { AccountView } from './model.js';
import type { AccountsDeps } from './ports/deps.js';

/**
 * The account owning an API key hash, with its live balance and what its ancestors impose on it
 * (the edge sends both to the proxy); not_found for unknown keys.
 */
export async function authenticateKey(deps: AccountsDeps, keyHash: string): Promise<AccountView> {
  if (!/^[0-9a-f]{64}$/.test(keyHash)) {
    throw new AppError(ErrorCode.InvalidRequest, 'key_hash must be hex SHA-256');
  }
  const account = await deps.store.accounts.findByKeyHash(keyHash);
  if (!account) {
    throw new AppError(ErrorCode.NotFound, 'no account has this key');
  }
  const now = deps.clock.now();
  const lots = await deps.store.lots.live([account.id], now);
  const inherited = inheritedFrom(await loadAncestors(deps.store.accounts, account));
  return { ...viewOf(account, lots, now), inherited };
}
