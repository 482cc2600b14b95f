import { column, rowsOf, type Database } from '@gw/kit';
import { sql } from 'drizzle-orm';
import type { UsageQuery, UsageReads, UsageRow } from '../domain/ports.js';

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
    return rowsOf<Record<string, string>>(result).map((row) => ({
      accountId: BigInt(row.account_id ?? '0'),
      day: row.day ?? '',
      model: row.model ?? '',
      requests: BigInt(row.requests ?? '0'),
      promptTokens: BigInt(row.prompt ?? '0'),
      completionTokens: BigInt(row.completion ?? '0'),
      cachedTokens: BigInt(row.cached ?? '0'),
      costNano: BigInt(row.cost ?? '0'),
    }));
  }
}
