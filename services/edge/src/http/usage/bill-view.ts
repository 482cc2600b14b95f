import { nanoToUsd } from '@gw/kit';
import type { billing } from '@gw/proto';
import { z } from 'zod';

const modelUsage = z.object({
  requests: z.number().int(),
  prompt: z.number().int(),
  completion: z.number().int(),
  cost: z.number(),
});

const dayUsage = z.object({
  /** Unix seconds of the UTC day's start. */
  aggregation_timestamp: z.number().int(),
  n_requests: z.number().int(),
  n_context_tokens_total: z.number().int(),
  n_generated_tokens_total: z.number().int(),
  n_cached_tokens_total: z.number().int(),
  usage_details: z.record(z.string(), modelUsage),
});

export const totalUsageSchema = z.object({
  requests: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  cost: z.number(),
});

/** The bill's `object`, `data` (one entry per UTC day with usage) and `total_usage`. */
export const billBodySchema = z.object({
  object: z.literal('list'),
  data: z.array(dayUsage),
  total_usage: totalUsageSchema,
});
export type BillBody = z.infer<typeof billBodySchema>;

/** Sums of rollup rows, exact: turned to numbers and USD only when rendered. */
export interface Sums {
  requests: bigint;
  prompt: bigint;
  completion: bigint;
  cached: bigint;
  costNano: bigint;
}

export const emptySums = (): Sums => ({ requests: 0n, prompt: 0n, completion: 0n, cached: 0n, costNano: 0n });

export function addRow(sums: Sums, row: billing.UsageRow): void {
  sums.requests += row.requests;
  sums.prompt += row.promptTokens;
  sums.completion += row.completionTokens;
  sums.cached += row.cachedTokens;
  sums.costNano += row.costNano;
}

export function totalUsage(rows: readonly billing.UsageRow[]): z.infer<typeof totalUsageSchema> {
  const sums = emptySums();
  rows.forEach((row) => addRow(sums, row));
  return {
    requests: Number(sums.requests),
    prompt_tokens: Number(sums.prompt),
    completion_tokens: Number(sums.completion),
    cached_tokens: Number(sums.cached),
    // Summed in nano-USD, turned to USD once: no float error piles up over many rows.
    cost: nanoToUsd(sums.costNano),
  };
}

/** Rollup rows (of one or many accounts) → the bill: per UTC day, per model within it, and in total. */
export function billBody(rows: readonly billing.UsageRow[]): BillBody {
  const days = new Map<string, { sums: Sums; models: Map<string, Sums> }>();
  for (const row of rows) {
    const day = days.get(row.day) ?? { sums: emptySums(), models: new Map<string, Sums>() };
    days.set(row.day, day);
    addRow(day.sums, row);
    const model = day.models.get(row.model) ?? emptySums();
    day.models.set(row.model, model);
    addRow(model, row);
  }
  const data = [...days.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([day, { sums, models }]) => ({
      aggregation_timestamp: Date.parse(`${day}T00:00:00Z`) / 1000,
      n_requests: Number(sums.requests),
      n_context_tokens_total: Number(sums.prompt),
      n_generated_tokens_total: Number(sums.completion),
      n_cached_tokens_total: Number(sums.cached),
      usage_details: Object.fromEntries(
        [...models.entries()].map(([model, usage]) => [
          model,
          {
            requests: Number(usage.requests),
            prompt: Number(usage.prompt),
            completion: Number(usage.completion),
            cost: nanoToUsd(usage.costNano),
          },
        ]),
      ),
    }));
  return { object: 'list', data, total_usage: totalUsage(rows) };
}
