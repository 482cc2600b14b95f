import { assertManages, assertSelfOrManages } from './access.js';
import { inheritedFrom, loadAncestors } from './inheritance.js';
import { loadCaller } from './load-caller.js';
import { viewOf } from './lots.js';
import type { AccountView } from './model.js';
import type { AccountsDeps } from './ports/deps.js';
import { findInTenant, lookupOf, singleIdentifier } from './tenancy.js';

export interface GetAccountInput {
  callerId: bigint;
  identifier: string;
  /** true: the caller itself is a valid answer (dashboard); false: only accounts it manages. */
  includeSelf: boolean;
}

/**
 * One account by id, name, e-mail or DNA, with what its ancestors impose on it. A target in the
 * caller's tenant but outside its subtree is 403; one in another tenant, or nowhere, is 404
 * (docs/decisions.md §9).
 */
export async function getAccount(deps: AccountsDeps, input: GetAccountInput): Promise<AccountView> {
  const caller = await loadCaller(deps, input.callerId, 'read');
  const target = await findInTenant(
    deps.store.accounts,
    caller,
    lookupOf(singleIdentifier(input.identifier), caller),
  );
  if (input.includeSelf) {
    assertSelfOrManages(caller, target);
  } else {
    assertManages(caller, target);
  }
  const now = deps.clock.now();
  const lots = await deps.store.lots.live([target.id], now);
  const inherited = inheritedFrom(await loadAncestors(deps.store.accounts, target));
  return { ...viewOf(target, lots, now), inherited };
}
