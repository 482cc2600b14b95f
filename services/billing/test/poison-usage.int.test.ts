import { connectNats, createLogger, type NatsConnection } from '@gw/kit';
import {
  createAccountByRpc,
  createTestDatabase,
  deadLetters,
  rootAccountId,
  startService,
  waitFor,
  type StartedService,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chargedByAccount,
  expectedCostNano,
  publishUsage,
  usageDrained,
  usageEvent,
} from './usage-helpers.js';

describe('billing: a usage event that cannot be charged', () => {
  let billing: StartedService<'billing'>;
  let database: TestDatabase;
  let nc: NatsConnection;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One batch takes every event below (they are published well within the wait).
    billing = await startService('billing', {
      databaseUrl: database.url,
      with: ['accounts', 'config'],
      env: { BILLING_BATCH_WAIT_MS: '1000' },
    });
    nc = await connectNats(billing.natsUrl, 'billing-test', createLogger('billing-test'));
  }, 120_000);

  afterAll(async () => {
    await nc.close();
    await billing.stop();
    await database.drop();
  });

  it('is dead-lettered with its reason while the rest of its batch is charged', async () => {
    const rootId = await rootAccountId(billing);
    const [first, second] = await Promise.all([
      createAccountByRpc(billing, { credit: 5 }),
      createAccountByRpc(billing, { credit: 5 }),
    ]);
    const good = [first, second].map((user, n) =>
      usageEvent({
        eventId: `evt_good_${n}`,
        accountId: BigInt(user.id),
        ownerId: rootId,
        model: 'gpt-4o-mini',
        promptTokens: 1000,
        completionTokens: 200,
      }),
    );
    // 2^62 tokens: their cost is far above the largest charge (and what a bigint column holds).
    const poison = usageEvent({
      eventId: 'evt_poison',
      accountId: BigInt(first.id),
      ownerId: rootId,
      model: 'gpt-4o-mini',
      promptTokens: 0,
      completionTokens: 0,
    });
    poison.promptTokens = 2n ** 62n;
    await Promise.all([publishUsage(nc, good[0]!), publishUsage(nc, poison), publishUsage(nc, good[1]!)]);

    await waitFor(() => usageDrained(nc), 'every event acknowledged or set aside', 30_000, 50);
    const charged = await chargedByAccount(database);
    expect(charged.get(BigInt(first.id))).toBe(expectedCostNano(good[0]!));
    expect(charged.get(BigInt(second.id))).toBe(expectedCostNano(good[1]!));
    const letters = await deadLetters(nc, 'billing');
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe('rejected');
    expect(letters[0]?.detail).toMatch(/cost/);
    expect(JSON.parse(letters[0]?.data ?? '{}')).toMatchObject({ eventId: 'evt_poison' });
    const records = await database.query(`SELECT 1 FROM billing.usage_records WHERE event_id = 'evt_poison'`);
    expect(records).toHaveLength(0);
  });
});
