import { usd } from '@gw/kit';
import type { billing } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { billBody } from './bill-view.js';

const row = (
  day: string,
  model: string,
  requests: number,
  costNano: bigint,
  accountId = 0n,
): billing.UsageRow => ({
  accountId,
  day,
  model,
  requests: BigInt(requests),
  promptTokens: BigInt(requests * 10),
  completionTokens: BigInt(requests * 3),
  cachedTokens: BigInt(requests),
  costNano,
});

describe('billBody', () => {
  it('sums per day and model across days, months and accounts, cost in USD from exact nano sums', () => {
    const body = billBody([
      row('2026-01-31', 'gpt-4o', 2, 100_000_001n),
      row('2026-01-31', 'gpt-4o', 1, 200_000_002n, 7n),
      row('2026-02-01', 'gpt-4o-mini', 5, 1n),
      row('2026-01-31', 'claude', 1, usd('0.1')),
    ]);
    expect(body.data).toEqual([
      {
        aggregation_timestamp: Date.UTC(2026, 0, 31) / 1000,
        n_requests: 4,
        n_context_tokens_total: 40,
        n_generated_tokens_total: 12,
        n_cached_tokens_total: 4,
        usage_details: {
          'gpt-4o': { requests: 3, prompt: 30, completion: 9, cost: 0.300000003 },
          claude: { requests: 1, prompt: 10, completion: 3, cost: 0.1 },
        },
      },
      {
        aggregation_timestamp: Date.UTC(2026, 1, 1) / 1000,
        n_requests: 5,
        n_context_tokens_total: 50,
        n_generated_tokens_total: 15,
        n_cached_tokens_total: 5,
        usage_details: { 'gpt-4o-mini': { requests: 5, prompt: 50, completion: 15, cost: 0.000000001 } },
      },
    ]);
    expect(body.total_usage).toEqual({
      requests: 9,
      prompt_tokens: 90,
      completion_tokens: 27,
      cached_tokens: 9,
      cost: 0.400000004,
    });
  });

  it('answers an empty list with zero totals when there was no usage', () => {
    expect(billBody([])).toEqual({
      object: 'list',
      data: [],
      total_usage: { requests: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cost: 0 },
    });
  });
});
