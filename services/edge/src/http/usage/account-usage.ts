import type { billing } from '@gw/proto';
import { z } from 'zod';
import type { EdgeDeps } from '../../deps.js';
import { billBody, billBodySchema, totalUsage } from './bill-view.js';

interface CallCounts {
  requests: number;
  tokens: number;
}

/**
 * Billing's part of the `usage` block of `user_info`: today's and this month's calls (UTC)
 * counted from its rollups; render.ts costs them at the account's spend.
 */
export interface UsageCounts {
  today: CallCounts;
  month: CallCounts;
}

/** /dashboard/live's additions: today's usage per model and this month's per day and model. */
export const liveUsageSchema = z.object({ daily_usage: billBodySchema, monthly_usage: billBodySchema });

function countsOf(rows: readonly billing.UsageRow[]): CallCounts {
  const total = totalUsage(rows);
  return { requests: total.requests, tokens: total.prompt_tokens + total.completion_tokens };
}

/** One account's usage this UTC month up to now, read once and shaped for each view. */
export async function accountUsage(deps: EdgeDeps, accountId: bigint, now: Date) {
  const today = now.toISOString().slice(0, 10);
  const { rows } = await deps.billing.getUsage({
    accountIds: [accountId],
    startDay: `${today.slice(0, 7)}-01`,
    endDay: today,
    byAccount: false,
  });
  const todays = rows.filter((row) => row.day === today);
  return {
    counts: (): UsageCounts => ({ today: countsOf(todays), month: countsOf(rows) }),
    live: (): z.infer<typeof liveUsageSchema> => ({
      daily_usage: billBody(todays),
      monthly_usage: billBody(rows),
    }),
  };
}
