import { connectNats, createLogger, type NatsConnection } from '@gw/kit';
import {
  createTestDatabase,
  createUser,
  expectError,
  startGateway,
  waitFor,
  type Created,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCostNano, publishUsage, rootIdOf, usageEvent } from './usage-helpers.js';

interface Bill {
  object: string;
  data: Array<{
    aggregation_timestamp: number;
    n_requests: number;
    usage_details: Record<string, { requests: number; cost: number }>;
  }>;
  total_usage: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number };
  query_fee: number;
}

describe('GET /dashboard/bill, /dashboard/info and /dashboard/live', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let nc: NatsConnection;
  let rootId: bigint;
  let user: Created;
  let counter = 0;

  const publish = async (accountId: number, at: string, model: string, promptTokens: number) => {
    const event = usageEvent({
      eventId: `evt_bill_${++counter}`,
      accountId: BigInt(accountId),
      ownerId: rootId,
      model,
      promptTokens,
      completionTokens: 10,
      at,
    });
    await publishUsage(nc, event);
    return expectedCostNano(event);
  };
  const recorded = async (n: number) =>
    Number(
      (await database.query<{ n: string }>('SELECT count(*)::text AS n FROM billing.usage_records'))[0]?.n,
    ) >= n;
  const bill = async (query: string, key = user.key, headers: Record<string, string> = {}) => {
    const response = await gw.request(`/dashboard/bill${query}`, { key, headers });
    expect(response.status, await response.clone().text()).toBe(200);
    return { body: (await response.json()) as Bill, replayed: response.headers.get('idempotent-replayed') };
  };
  const balance = async () =>
    ((await (await gw.request('/dashboard/status', { key: user.key })).json()) as { balance: number })
      .balance;

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    nc = await connectNats(gw.natsUrl, 'bill-test', createLogger('bill-test'));
    rootId = await rootIdOf(gw);
    user = await createUser(gw, { credit: 10 });
  }, 120_000);

  afterAll(async () => {
    await nc.close();
    await gw.stop();
    await database.drop();
  });

  it('sums a span across a month boundary per UTC day and model', async () => {
    const costs = [
      await publish(user.id, '2026-01-31T23:59:59Z', 'gpt-4o-mini', 100),
      await publish(user.id, '2026-01-31T08:00:00Z', 'gpt-4.1', 100),
      await publish(user.id, '2026-02-01T00:00:00Z', 'gpt-4o-mini', 200),
      await publish(user.id, '2026-03-01T00:00:00Z', 'gpt-4o-mini', 300),
    ];
    await waitFor(() => recorded(counter), 'the events recorded', 30_000, 50);
    const { body } = await bill('?s=2026-01-31&e=2026-02-01');
    expect(body.object).toBe('list');
    expect(body.data.map((day) => [day.aggregation_timestamp, day.n_requests])).toEqual([
      [Date.UTC(2026, 0, 31) / 1000, 2],
      [Date.UTC(2026, 1, 1) / 1000, 1],
    ]);
    expect(Object.keys(body.data[0]?.usage_details ?? {}).sort()).toEqual(['gpt-4.1', 'gpt-4o-mini']);
    expect(body.total_usage).toMatchObject({ requests: 3, prompt_tokens: 400, completion_tokens: 30 });
    expect(body.total_usage.cost).toBe(Number(costs[0]! + costs[1]! + costs[2]!) / 1e9);
    expect(body.query_fee).toBe(0);
    expect((await bill('?date=2026-03')).body.total_usage.requests).toBe(1);
    expect((await bill('?d=2026-02-01')).body.total_usage.requests).toBe(1);
  });

  it('charges 0.01 USD from 31 days and 0.05 USD over 365, once per Idempotency-Key', async () => {
    let before = await balance();
    expect((await bill('?s=2026-01-01&e=2026-01-30')).body.query_fee).toBe(0);
    expect(await balance()).toBe(before);

    const month31 = await bill('?s=2026-01-01&e=2026-01-31', user.key, { 'Idempotency-Key': 'bill-31' });
    expect(month31.body.query_fee).toBe(0.01);
    expect(await balance()).toBeCloseTo(before - 0.01, 9);
    before = await balance();
    const again = await bill('?s=2026-01-01&e=2026-01-31', user.key, { 'Idempotency-Key': 'bill-31' });
    expect(again.replayed).toBe('true');
    expect(await balance()).toBe(before);

    expect((await bill('?s=2025-01-01&e=2025-12-31')).body.query_fee).toBe(0.01);
    before = await balance();
    const long = await bill('?s=2024-01-01&e=2025-12-31');
    expect(long.body.query_fee).toBe(0.05);
    expect(await balance()).toBeCloseTo(before - 0.05, 9);
  });

  it('refuses a bad date with 400 and charges nothing', async () => {
    const before = await balance();
    const response = await gw.request('/dashboard/bill?s=2026-02-30&days=400', { key: user.key });
    expect(response.status).toBe(400);
    expect(await balance()).toBe(before);
  });

  it('refuses a paid span the balance does not cover, or a disabled account, and charges nothing', async () => {
    const indebted = await createUser(gw, { credit: 2 });
    await publish(indebted.id, new Date().toISOString(), 'gpt-4.1', 2_000_000);
    const statusOf = async (key: string) =>
      (await (await gw.request('/dashboard/status', { key })).json()) as { balance: number };
    await waitFor(async () => (await statusOf(indebted.key)).balance < 0, 'the usage charged into debt');
    const debt = (await statusOf(indebted.key)).balance;
    await expectError(
      await gw.request('/dashboard/bill?days=400', { key: indebted.key }),
      400,
      'insufficient_credit',
    );
    expect((await statusOf(indebted.key)).balance).toBe(debt);

    const disabled = await createUser(gw, { credit: 10 });
    const update = await gw.request(`/x-users/${disabled.id}`, { method: 'PUT', json: { Status: false } });
    expect(update.status).toBe(200);
    await expectError(await gw.request('/dashboard/bill?days=400', { key: disabled.key }), 403, 'forbidden');
    expect((await statusOf(disabled.key)).balance).toBe(10);
  });

  it('shows today and this month in /dashboard/info and /dashboard/live', async () => {
    // A fresh account: the bill fees charged above are spend too, and the usage block's cost is
    // the account's spend (calls counted by billing, costed by accounts).
    const fresh = await createUser(gw, { credit: 10 });
    const now = new Date().toISOString();
    const cost = await publish(fresh.id, now, 'gpt-4o-mini', 1000);
    await waitFor(() => recorded(counter), 'the event recorded', 30_000, 50);
    const today = async () =>
      (
        (await (await gw.request('/dashboard/info', { key: fresh.key })).json()) as {
          usage: { today: { requests: number; tokens: number; cost: number } };
        }
      ).usage.today;
    const expected = { requests: 1, tokens: 1010, cost: Number(cost) / 1e9 };
    await waitFor(async () => (await today()).cost === expected.cost, 'the charge in the spend', 30_000, 50);
    expect(await today()).toEqual(expected);
    const live = (await (await gw.request('/dashboard/live', { key: fresh.key })).json()) as {
      object: string;
      daily_usage: Bill;
      monthly_usage: Bill;
    };
    expect(live.object).toBe('user_info');
    expect(live.daily_usage.total_usage.requests).toBe(1);
    expect(live.monthly_usage.total_usage.requests).toBeGreaterThanOrEqual(1);
  });

  it('GET /x-bill sums the descendants of the caller only, each with its share, never a sibling', async () => {
    const parent = await createUser(gw, { credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 3 });
    const idle = await createUser(gw, { parentKey: parent.key, credit: 3 });
    const grandchild = await createUser(gw, { parentKey: child.key, credit: 2 });
    const sibling = await createUser(gw, { credit: 3 });
    const day = '2026-02-10T12:00:00Z';
    await publish(child.id, day, 'gpt-4o-mini', 100);
    await publish(grandchild.id, day, 'gpt-4o-mini', 300);
    await publish(grandchild.id, day, 'gpt-4.1', 100);
    await publish(sibling.id, day, 'gpt-4o-mini', 1000);
    await waitFor(() => recorded(counter), 'the events recorded', 30_000, 50);

    const xBill = async (query: string, key: string) => {
      const response = await gw.request(`/x-bill${query}`, { key });
      return {
        status: response.status,
        body: (await response.json()) as Bill & {
          usage_users: Array<{
            id: number;
            total_requests: number;
            total_prompt: number;
            usage_analysis: { request_percentage: number; prompt_percentage: number };
            model_usage: Record<string, { requests: number }>;
          }>;
        },
      };
    };
    const mine = await xBill('?start_date=2026-02-01&end_date=2026-02-28', parent.key);
    expect(mine.status).toBe(200);
    expect(mine.body.usage_users.map((row) => row.id).sort()).toEqual(
      [child.id, idle.id, grandchild.id].sort(),
    );
    expect(mine.body.total_usage).toMatchObject({ requests: 3, prompt_tokens: 500 });
    const byId = new Map(mine.body.usage_users.map((row) => [row.id, row]));
    expect(byId.get(grandchild.id)).toMatchObject({
      total_requests: 2,
      total_prompt: 400,
      usage_analysis: { request_percentage: 66.66, prompt_percentage: 80 },
      model_usage: { 'gpt-4o-mini': { requests: 1 }, 'gpt-4.1': { requests: 1 } },
    });
    expect(byId.get(idle.id)).toMatchObject({ total_requests: 0, usage_analysis: { request_percentage: 0 } });

    const below = await xBill('?s=2026-02-01&e=2026-02-28', child.key);
    expect(below.body.usage_users.map((row) => row.id)).toEqual([grandchild.id]);
    expect(below.body.total_usage.requests).toBe(2);
    const one = await xBill(`?u=${grandchild.id}&s=2026-02-01&e=2026-02-28`, parent.key);
    expect(one.body.usage_users.map((row) => row.id)).toEqual([grandchild.id]);

    const outside = await xBill(`?u=${sibling.id}&s=2026-02-01&e=2026-02-28`, parent.key);
    expect([403, 404]).toContain(outside.status);
    expect(JSON.stringify(outside.body)).not.toContain('"usage_users"');
    const up = await xBill(`?user=${parent.id}`, child.key);
    expect([403, 404]).toContain(up.status);
  });
});
