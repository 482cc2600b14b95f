import { bigintText, column, rowsOf, type Database } from '@gw/kit';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { UsageQuery, UsageReads, UsageRow } from '../domain/ports/usage.js';

/** One group of rollups, as the statement below answers it. */
const UsageGroupRow = z.object({
  account_id: bigintText,
  day: z.string(),
  model: z.string(),
  requests: bigintText,
  prompt: bigintText,
  completion: bigintText,
  cached: bigintText,
  cost: bigintText,
});

/** Bills read the rollups only (one row per account × day × model), never the records. */
export class DrizzleUsageReads implements UsageReads {
  constructor(private readonly db: Database) {}

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const ids = column(query.accountIds, String);
    const account = query.byAccount ? sql`account_id` : sql`0::bigint`;
    const result: unknown = await this.db.execute(sql`
      SELECT ${account}::text AS account_id, day::text AS day, model,
             SUM(requests)::text AS requests, SUM(prompt_tokens)::text AS prompt,
             SUM(completion_tokens)::text AS completion, SUM(cached_tokens)::text AS cached,
             SUM(cost_nano)::text AS cost
        FROM billing.usage_rollups
       WHERE account_id = ANY(${ids}::bigint[]) AND day BETWEEN ${query.startDay}::date AND ${query.endDay}::date
       GROUP BY 1, 2, 3
       ORDER BY 1, 2, 3`);
    return rowsOf(result, UsageGroupRow).map((row) => ({
      accountId: row.account_id,
      day: row.day,
      model: row.model,
      requests: row.requests,
      promptTokens: row.prompt,
      completionTokens: row.completion,
      cachedTokens: row.cached,
      costNano: row.cost,
    }));
  }
}
