import { bigintText, column, rowsOf, transactionWithinDeadline, type Database } from '@gw/kit';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { StoredCharge, UsageRecord, UsageStore } from '../domain/ports/usage.js';

/** A record the insert stored now. */
const InsertedRow = z.object({ event_id: z.string() });

/** A record stored before (a redelivery), as the SELECT after the insert answers it. */
const StoredChargeRow = z.object({
  event_id: z.string(),
  account_id: bigintText,
  model: z.string(),
  cost_nano: bigintText,
});

/** Usage records and rollups over drizzle: one transaction, one statement per batch (two with redeliveries). */
export class DrizzleUsageStore implements UsageStore {
  constructor(private readonly db: Database) {}

  async recordBatch(records: readonly UsageRecord[]): Promise<StoredCharge[]> {
    if (records.length === 0) {
      return [];
    }
    return transactionWithinDeadline(this.db, async (tx) => {
      // Records and the rollups of exactly the rows inserted now, in one statement: a record
      // that was already there (a redelivery) adds nothing to the rollups. It answers the ids it
      // inserted, whose stored charge is the one given.
      const inserted: unknown = await tx.execute(sql`
        WITH input AS (
          SELECT * FROM unnest(
            ${column(records, (r) => r.eventId)}::text[],
            ${column(records, (r) => String(r.accountId))}::bigint[],
            ${column(records, (r) => String(r.ownerId))}::bigint[],
            ${column(records, (r) => r.model)}::text[],
            ${column(records, (r) => r.day)}::date[],
            ${column(records, (r) => r.at.toISOString())}::timestamptz[],
            ${column(records, (r) => String(r.promptTokens))}::bigint[],
            ${column(records, (r) => String(r.completionTokens))}::bigint[],
            ${column(records, (r) => String(r.cachedTokens))}::bigint[],
            ${column(records, (r) => String(r.costNano))}::bigint[],
            ${column(records, (r) => r.fallbackPrice)}::boolean[],
            ${column(records, (r) => r.partial)}::boolean[],
            ${column(records, (r) => r.estimated)}::boolean[]
          ) AS t(event_id, account_id, owner_id, model, day, at, prompt_tokens, completion_tokens,
                 cached_tokens, cost_nano, fallback_price, partial, estimated)
        ),
        inserted AS (
          INSERT INTO billing.usage_records (event_id, account_id, owner_id, model, day, at, prompt_tokens,
                 completion_tokens, cached_tokens, cost_nano, fallback_price, partial, estimated)
          SELECT * FROM input
          ON CONFLICT (event_id) DO NOTHING
          RETURNING event_id, account_id, day, model, prompt_tokens, completion_tokens, cached_tokens,
                    cost_nano
        ),
        rolled_up AS (
          INSERT INTO billing.usage_rollups AS r (account_id, day, model, requests, prompt_tokens,
                 completion_tokens, cached_tokens, cost_nano)
          SELECT account_id, day, model, count(*), sum(prompt_tokens), sum(completion_tokens),
                 sum(cached_tokens), sum(cost_nano)
            FROM inserted GROUP BY account_id, day, model
          ON CONFLICT (account_id, day, model) DO UPDATE SET
            requests = r.requests + excluded.requests,
            prompt_tokens = r.prompt_tokens + excluded.prompt_tokens,
            completion_tokens = r.completion_tokens + excluded.completion_tokens,
            cached_tokens = r.cached_tokens + excluded.cached_tokens,
            cost_nano = r.cost_nano + excluded.cost_nano
        )
        SELECT event_id FROM inserted`);
      const fresh = new Set(rowsOf(inserted, InsertedRow).map((row) => row.event_id));
      const charges: StoredCharge[] = records
        .filter((record) => fresh.has(record.eventId))
        .map(({ eventId, accountId, model, costNano }) => ({ eventId, accountId, model, costNano }));
      const before = records.filter((record) => !fresh.has(record.eventId));
      if (before.length === 0) {
        return charges;
      }
      // A record stored before keeps the charge it was first stored with. A new statement, so it
      // also sees a record another billing process committed while this insert waited on it.
      const stored: unknown = await tx.execute(sql`
        SELECT event_id, account_id::text AS account_id, model, cost_nano::text AS cost_nano
          FROM billing.usage_records
         WHERE event_id = ANY(${column(before, (r) => r.eventId)}::text[])`);
      return [
        ...charges,
        ...rowsOf(stored, StoredChargeRow).map((row) => ({
          eventId: row.event_id,
          accountId: row.account_id,
          model: row.model,
          costNano: row.cost_nano,
        })),
      ];
    });
  }
}
