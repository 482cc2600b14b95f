import { DEFAULT_PRICES, publishDurable, STREAMS, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { Gateway, TestDatabase } from '@gw/testkit';

/** A usage event as the proxy publishes it, for a chat model with plain prompt and completion tokens. */
export function usageEvent(fields: {
  eventId: string;
  accountId: bigint;
  ownerId: bigint;
  model: string;
  promptTokens: number;
  completionTokens: number;
  at?: string;
}): events.UsageRecorded {
  return events.UsageRecorded.fromPartial({
    eventId: fields.eventId,
    accountId: fields.accountId,
    ownerId: fields.ownerId,
    modelRequested: fields.model,
    modelServed: fields.model,
    path: '/v1/chat/completions',
    status: 200,
    promptTokens: BigInt(fields.promptTokens),
    completionTokens: BigInt(fields.completionTokens),
    at: fields.at ?? new Date().toISOString(),
  });
}

/**
 * The cost of such an event worked out here from the default table, not by the pricing code:
 * USD per 1M tokens is nano-USD per thousand tokens, so the prices of the models used here are
 * whole nano-USD per token and the cost is exact without rounding.
 */
export function expectedCostNano(event: events.UsageRecorded): bigint {
  const price = DEFAULT_PRICES.ChatPricing[event.modelServed];
  if (!price?.InputText || !price.OutputText) {
    throw new Error(`no chat price for ${event.modelServed}`);
  }
  const perToken = (usdPerMillion: number) => {
    const nano = usdPerMillion * 1000;
    if (Math.abs(nano - Math.round(nano)) > 1e-9) {
      throw new Error(`${usdPerMillion} is not whole nano-USD per token`);
    }
    return BigInt(Math.round(nano));
  };
  return event.promptTokens * perToken(price.InputText) + event.completionTokens * perToken(price.OutputText);
}

/** Publishes to GW_USAGE the way the proxy's outbox does (the message id drops a duplicate send). */
export async function publishUsage(nc: NatsConnection, event: events.UsageRecorded, msgId = event.eventId) {
  await publishDurable(nc, SUBJECTS.usageRecorded, events.UsageRecorded, event, msgId);
}

export async function usageConsumerState(nc: NatsConnection) {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.consumers.info(STREAMS.usage.name, 'billing');
  // Every delivery, first or again, takes the next consumer sequence number.
  return {
    pending: info.num_pending,
    ackPending: info.num_ack_pending,
    deliveries: info.delivered.consumer_seq,
  };
}

/** Every published usage event charged and acknowledged: nothing pending, nothing in hand. */
export async function usageDrained(nc: NatsConnection): Promise<boolean> {
  const state = await usageConsumerState(nc);
  return state.pending === 0 && state.ackPending === 0;
}

/** Σ usage charged per account in the accounts ledger. */
export async function chargedByAccount(database: TestDatabase): Promise<Map<bigint, bigint>> {
  const rows = await database.query<{ account_id: string; charged: string }>(
    `SELECT account_id::text, (-SUM(amount_nano))::text AS charged FROM accounts.ledger WHERE kind = 'usage' GROUP BY account_id`,
  );
  return new Map(rows.map((row) => [BigInt(row.account_id), BigInt(row.charged)]));
}

/** The rollups, and the same sums computed from the records: equal when no record was counted twice or missed. */
export async function rollupsAndRecords(database: TestDatabase) {
  const fromRecords = await database.query(
    `SELECT account_id::text, day::text, model, count(*)::text AS requests, SUM(prompt_tokens)::text AS prompt,
            SUM(completion_tokens)::text AS completion, SUM(cached_tokens)::text AS cached, SUM(cost_nano)::text AS cost
       FROM billing.usage_records GROUP BY account_id, day, model ORDER BY 1, 2, 3`,
  );
  const rollups = await database.query(
    `SELECT account_id::text, day::text, model, requests::text AS requests, prompt_tokens::text AS prompt,
            completion_tokens::text AS completion, cached_tokens::text AS cached, cost_nano::text AS cost
       FROM billing.usage_rollups ORDER BY 1, 2, 3`,
  );
  return { fromRecords, rollups };
}

/** Root's account id, read through the edge (so accounts is up and migrated). */
export async function rootIdOf(gw: Gateway): Promise<bigint> {
  const me = (await (await gw.request('/dashboard/status')).json()) as { id: number };
  return BigInt(me.id);
}
