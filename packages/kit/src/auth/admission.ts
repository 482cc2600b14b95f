import type { accounts } from '@gw/proto';
import { AppError, ErrorCode } from '../errors.js';
import { formatUsd } from '../money.js';

/**
 * Admission of AI calls (docs/decisions.md §1): usage is billed after the call, so the gateway
 * stops new calls once the month's HardLimit or the UTC day's DailyLimit is reached, or the
 * balance is at or below the API floor (root excepted). Every fact comes from the cached account,
 * which accounts invalidates on each crossing; the day spend stops counting at UTC midnight.
 */
export function assertMayCallAi(account: accounts.Account, apiBalanceFloorNano: bigint, now: Date): void {
  if (account.spendBlocked) {
    throw new AppError(ErrorCode.QuotaExceeded, "this account's monthly HardLimit is reached");
  }
  const today = now.toISOString().slice(0, 10);
  if (
    account.dailyLimitNano > 0n &&
    account.spendDay === today &&
    account.daySpendNano >= account.dailyLimitNano
  ) {
    throw new AppError(ErrorCode.QuotaExceeded, "this account's DailyLimit for today (UTC) is reached");
  }
  // Root mints credit rather than holding it, so its balance says nothing about what it may spend.
  if (!account.isRoot && account.balanceNano <= apiBalanceFloorNano) {
    throw new AppError(
      ErrorCode.QuotaExceeded,
      `the balance must be above ${formatUsd(apiBalanceFloorNano)} USD for AI calls`,
    );
  }
}
