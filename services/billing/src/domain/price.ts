import { priceEvent, type FallbackPrice, type PriceTable } from '@gw/kit';
import type { AccountMultipliers } from './ports/deps.js';
import type { UsageEvent } from './ports/usage.js';

/**
 * The one place billing prices an event: the kit's rule (merged table × the model's Rates × the
 * account's Rates × Factor, rounded once, in nano-USD), so the views, tests and benchmarks that
 * price an event agree with the charge.
 */
export function priceUsage(
  event: UsageEvent,
  table: PriceTable,
  multipliers: AccountMultipliers,
  fallback: FallbackPrice,
): { costNano: bigint; fallback: boolean } {
  const price = priceEvent(event, table, multipliers, fallback);
  return { costNano: price.nanoUsd, fallback: price.fallback };
}
