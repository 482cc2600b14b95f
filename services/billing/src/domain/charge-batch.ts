import { MAX_EVENT_CHARGE_NANO, type FallbackPrice } from '@gw/kit';
import { priceUsage } from './price.js';
import type { ChargeDeps } from './ports/deps.js';
import type { UsageEvent, UsageRecord } from './ports/usage.js';

const NEUTRAL = { accountRates: 1, factor: 1 };

/** The model a usage event is billed under: the one upstream served, else the one asked for. */
export function billedModel(event: Pick<UsageEvent, 'modelServed' | 'modelRequested'>): string {
  return event.modelServed || event.modelRequested;
}

/** The event's time, and its UTC day; an event without a readable time counts at `now`. */
function eventTime(at: string, now: Date): { at: Date; day: string } {
  const parsed = new Date(at);
  const time = Number.isNaN(parsed.getTime()) ? now : parsed;
  return { at: time, day: time.toISOString().slice(0, 10) };
}

/** Largest token count a usage record's bigint column holds. */
const MAX_STORED_COUNT = 2n ** 63n - 1n;

/** An event that can never be charged (retrying cannot change its price), and why. */
export interface Unchargeable {
  eventId: string;
  reason: string;
}

/** The charge of one event, or why it has none: each event is priced on its own. */
function priceOne(
  event: UsageEvent,
  price: () => ReturnType<typeof priceUsage>,
): ReturnType<typeof priceUsage> | Unchargeable {
  if ([event.promptTokens, event.completionTokens, event.cachedTokens].some((n) => n > MAX_STORED_COUNT)) {
    return { eventId: event.eventId, reason: 'a token count is above what a record holds' };
  }
  let priced: ReturnType<typeof priceUsage>;
  try {
    priced = price();
  } catch (error) {
    return { eventId: event.eventId, reason: `cannot be priced: ${String(error)}` };
  }
  if (priced.costNano > MAX_EVENT_CHARGE_NANO) {
    return { eventId: event.eventId, reason: `cost ${priced.costNano} nano-USD is above the largest charge` };
  }
  return priced;
}

/**
 * Charges one batch of usage events, in the order that makes a crash at any point harmless:
 *   1. price each event (its owner's merged table, its account's Rates and Factor); an event that
 *      cannot be priced, or costs more than the largest charge, is answered as unchargeable and
 *      the others go on;
 *   2. one billing transaction stores the records not stored yet and adds only those to the
 *      rollups, answering every event's STORED cost (a redelivered event keeps the cost it was
 *      first recorded with, even if prices changed since);
 *   3. one DebitBatch with those costs, idempotent by event id in accounts;
 *   4. the caller acknowledges the events only after this resolves.
 * Dying after 2 redelivers the batch: 2 inserts nothing, 3 replays. Dying after 3: the same.
 * So every event is recorded once, counted once in the rollups and charged once.
 */
export async function chargeBatch(
  deps: ChargeDeps,
  input: { events: readonly UsageEvent[]; fallback: FallbackPrice; now: Date },
): Promise<Unchargeable[]> {
  const unique = [...new Map(input.events.map((event) => [event.eventId, event])).values()];
  if (unique.length === 0) {
    return [];
  }
  const owners = [...new Set(unique.map((event) => event.ownerId))];
  const tables = new Map(
    await Promise.all(owners.map(async (id) => [id, await deps.prices.tableFor(id)] as const)),
  );
  const multipliers = await deps.rates.multipliers([...new Set(unique.map((event) => event.accountId))]);
  const unchargeable: Unchargeable[] = [];
  const records: UsageRecord[] = [];
  for (const event of unique) {
    const table = tables.get(event.ownerId);
    if (!table) {
      throw new Error(`no price table loaded for owner ${event.ownerId}`);
    }
    const price = priceOne(event, () =>
      priceUsage(event, table, multipliers.get(event.accountId) ?? NEUTRAL, input.fallback),
    );
    if ('reason' in price) {
      unchargeable.push(price);
      continue;
    }
    const model = billedModel(event);
    if (price.fallback) {
      deps.log.warn(
        { eventId: event.eventId, model, ownerId: String(event.ownerId), costNano: String(price.costNano) },
        'model priced nowhere: charged at GW_FALLBACK_PRICE',
      );
    }
    const time = eventTime(event.at, input.now);
    records.push({
      eventId: event.eventId,
      accountId: event.accountId,
      ownerId: event.ownerId,
      model,
      at: time.at,
      day: time.day,
      promptTokens: event.promptTokens,
      completionTokens: event.completionTokens,
      cachedTokens: event.cachedTokens,
      costNano: price.costNano,
      fallbackPrice: price.fallback,
      partial: event.partial,
      estimated: event.estimated,
    });
  }
  const charges = await deps.store.recordBatch(records);
  const results = await deps.ledger.debitBatch(charges);
  const costs = new Map(charges.map((charge) => [charge.eventId, charge.costNano]));
  let charged = 0n;
  for (const result of results) {
    if (result.outcome === 'charged') {
      // A replay was counted when it was first charged, so the metric sums each event once.
      charged += costs.get(result.eventId) ?? 0n;
    } else if (result.outcome === 'conflict' || result.outcome === 'no_account') {
      // Nothing moved for it and retrying cannot change that: say so loudly, once.
      deps.log.warn({ eventId: result.eventId, outcome: result.outcome }, 'usage event could not be charged');
    }
  }
  deps.metrics.charged(charged);
  return unchargeable;
}
