import { AppError, ErrorCode } from '@gw/kit';
import { assertManages, assertSelfOrManages } from './access.js';
import { parseIdentifier } from './identifier.js';
import { loadCaller } from './load-caller.js';
import { viewOf } from './lots.js';
import type { AccountView } from './model.js';
import { emailKey, nameKey } from './names.js';
import type { AccountLookup } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';

export interface GetAccountInput {
  callerId: bigint;
  identifier: string;
  /** true: the caller itself is a valid answer (dashboard); false: only accounts it manages. */
  includeSelf: boolean;
}

/**
 * One account by id, name, e-mail or DNA. A target that exists outside the caller's subtree is
 * 403 and one that exists nowhere is 404 (docs/decisions.md §9).
 */
export async function getAccount(deps: AccountsDeps, input: GetAccountInput): Promise<AccountView> {
  const caller = await loadCaller(deps, input.callerId, 'read');
  const identifier = parseIdentifier(input.identifier);
  if (!identifier) {
    throw new AppError(ErrorCode.InvalidRequest, 'identifier is not an id, name, e-mail or DNA path');
  }
  let lookup: AccountLookup;
  switch (identifier.kind) {
    case 'id':
      lookup = { by: 'id', id: identifier.id };
      break;
    case 'email':
      lookup = { by: 'email', emailKey: emailKey(identifier.email) };
      break;
    case 'dna':
      lookup = { by: 'dna', dna: identifier.dna };
      break;
    case 'name':
      lookup = { by: 'name', nameKey: nameKey(identifier.name) };
      break;
    case 'filter':
      throw new AppError(ErrorCode.InvalidRequest, 'a prefix filter selects a list, not one account');
  }
  const target = await deps.store.accounts.findOne(lookup, '.');
  if (!target) {
    throw new AppError(ErrorCode.NotFound, 'no such account');
  }
  if (input.includeSelf) {
    assertSelfOrManages(caller, target);
  } else {
    assertManages(caller, target);
  }
  const now = deps.clock.now();
  const lots = await deps.store.lots.live([target.id], now);
  return viewOf(target, lots, now);
}
