import { nanoToUsd } from '@gw/kit';
import type { accounts, billing } from '@gw/proto';
import { addRow, emptySums, type Sums } from '../usage/bill-view.js';
import type { UserUsage } from './schemas.js';

interface UserSums extends Sums {
  models: Map<string, { requests: bigint; costNano: bigint }>;
}

const empty = (): UserSums => ({ ...emptySums(), models: new Map() });

/** part / whole in percent with two decimals; 0 when the whole is 0. */
function percent(part: bigint, whole: bigint): number {
  return whole === 0n ? 0 : Number((part * 10_000n) / whole) / 100;
}

/** Each listed account's totals and share from per-account rollup rows (accounts without usage read 0). */
export function usageUsers(
  listed: readonly accounts.Account[],
  rows: readonly billing.UsageRow[],
): UserUsage[] {
  const byAccount = new Map<bigint, UserSums>();
  const all = emptySums();
  for (const row of rows) {
    const sums = byAccount.get(row.accountId) ?? empty();
    byAccount.set(row.accountId, sums);
    addRow(sums, row);
    addRow(all, row);
    const model = sums.models.get(row.model) ?? { requests: 0n, costNano: 0n };
    sums.models.set(row.model, {
      requests: model.requests + row.requests,
      costNano: model.costNano + row.costNano,
    });
  }
  return listed.map((account) => {
    const sums = byAccount.get(account.id) ?? empty();
    return {
      id: Number(account.id),
      name: account.name,
      email: account.email,
      total_requests: Number(sums.requests),
      total_prompt: Number(sums.prompt),
      total_completion: Number(sums.completion),
      total_cached: Number(sums.cached),
      total_cost: nanoToUsd(sums.costNano),
      usage_analysis: {
        request_percentage: percent(sums.requests, all.requests),
        cost_percentage: percent(sums.costNano, all.costNano),
        prompt_percentage: percent(sums.prompt, all.prompt),
        completion_percentage: percent(sums.completion, all.completion),
      },
      model_usage: Object.fromEntries(
        [...sums.models].map(([model, usage]) => [
          model,
          { requests: Number(usage.requests), cost: nanoToUsd(usage.costNano) },
        ]),
      ),
    };
  });
}
