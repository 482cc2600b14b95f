import { AppError, ErrorCode } from '@gw/kit';
import type { UsageQuery, UsageReads, UsageRow } from './ports/usage.js';

/** At most this many accounts per query (a bill over a large subtree pages through the edge). */
export const MAX_USAGE_ACCOUNTS = 10_000;
/** At most this many days per query: a bill is cut to a year, a little slack for a leap year. */
export const MAX_USAGE_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function dayNumber(day: string, field: string): number {
  const time = Date.parse(`${day}T00:00:00Z`);
  if (!DAY.test(day) || Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== day) {
    throw new AppError(ErrorCode.InvalidRequest, `${field}: must be a date YYYY-MM-DD`);
  }
  return time / 86_400_000;
}

/** The rollups of some accounts over a span of UTC days: what bills and usage views are made of. */
export async function getUsage(deps: { store: UsageReads }, query: UsageQuery): Promise<UsageRow[]> {
  const span = dayNumber(query.endDay, 'end_day') - dayNumber(query.startDay, 'start_day') + 1;
  if (span < 1 || span > MAX_USAGE_DAYS) {
    throw new AppError(ErrorCode.InvalidRequest, `the span must be 1 to ${MAX_USAGE_DAYS} days`);
  }
  if (query.accountIds.length > MAX_USAGE_ACCOUNTS) {
    throw new AppError(ErrorCode.InvalidRequest, `account_ids: at most ${MAX_USAGE_ACCOUNTS}`);
  }
  if (query.accountIds.length === 0) {
    return [];
  }
  return deps.store.usage(query);
}
