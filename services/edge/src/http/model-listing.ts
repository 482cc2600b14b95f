import { callerMayUseModel, DEFAULT_MODELS, type DefaultModel } from '@gw/kit';
import type { accounts } from '@gw/proto';

/**
 * The models a caller may use, for the listings: the default price table's models (an owner's
 * PRICING additions are not listed), kept when the caller's effective AllowModels, its own and
 * every ancestor's (docs/decisions.md §13), allows them.
 */
export function listedModels(account: accounts.Account): DefaultModel[] {
  const lists = {
    allowModels: account.allowModels,
    inherited: { allowModels: account.inherited?.allowModels ?? [] },
  };
  return DEFAULT_MODELS.filter((model) => callerMayUseModel(lists, model.id));
}
