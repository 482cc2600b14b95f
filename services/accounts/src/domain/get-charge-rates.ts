import { AppError, ErrorCode } from '@gw/kit';
import type { AccountsDeps } from './ports/deps.js';

/** At most this many ids per call. */
export const MAX_CHARGE_RATE_IDS = 5000;

/**
 * The account Rates and Factor a usage charge is multiplied by (billing reads them per batch),
 * deleted accounts included: usage that arrives after a delete is priced at the account's own
 * Rates and charged to its nearest live ancestor (docs/decisions.md §4).
 */
export async function getChargeRates(
  deps: Pick<AccountsDeps, 'store'>,
  accountIds: readonly bigint[],
): Promise<Array<{ id: bigint; rates: number; factor: number }>> {
  if (accountIds.length > MAX_CHARGE_RATE_IDS) {
    throw new AppError(ErrorCode.InvalidRequest, `account_ids: at most ${MAX_CHARGE_RATE_IDS} per call`);
  }
  return deps.store.accounts.chargeRates([...new Set(accountIds)]);
}
