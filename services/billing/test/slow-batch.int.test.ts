import { connectNats, createLogger, type NatsConnection } from '@gw/kit';
import {
  createAccountByRpc,
  createTestDatabase,
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
  usageConsumerState,
  usageDrained,
  usageEvent,
} from './usage-helpers.js';

const ACK_WAIT_MS = 1000;
const HOLD_SECONDS = 3.5;

describe('billing: a batch slower than BILLING_ACK_WAIT_MS', () => {
  let billing: StartedService<'billing'>;
  let database: TestDatabase;
  let nc: NatsConnection;

  beforeAll(async () => {
    database = await createTestDatabase();
    billing = await startService('billing', {
      databaseUrl: database.url,
      with: ['accounts', 'config'],
      env: { BILLING_ACK_WAIT_MS: String(ACK_WAIT_MS) },
    });
    nc = await connectNats(billing.natsUrl, 'billing-test', createLogger('billing-test'));
  }, 120_000);

  afterAll(async () => {
    await nc.close();
    await billing.stop();
    await database.drop();
  });

  it('is not delivered again while it is being charged, and is charged once', async () => {
    const user = await createAccountByRpc(billing, { credit: 5 });
    // The account's row stays locked for longer than the ack wait, so its DebitBatch waits. The
    // lock is taken first (a materialized CTE), then the statement sleeps holding it.
    const held = database.query(
      `WITH locked AS MATERIALIZED (SELECT id FROM accounts.accounts WHERE id = $1 FOR UPDATE)
       SELECT pg_sleep(${HOLD_SECONDS}) FROM locked`,
      [user.id],
    );
    await waitFor(
      async () =>
        (
          await database.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event = 'PgSleep'`,
          )
        ).length === 1,
      'the row lock held',
      5_000,
      20,
    );
    const event = usageEvent({
      eventId: `evt_slow_${user.id}`,
      accountId: BigInt(user.id),
      ownerId: await rootAccountId(billing),
      model: 'gpt-4o-mini',
      promptTokens: 1200,
      completionTokens: 300,
    });
    await publishUsage(nc, event);
    await held;
    await waitFor(() => usageDrained(nc), 'the event acknowledged', 20_000, 50);
    // The only event of this gateway's stream, delivered once.
    expect((await usageConsumerState(nc)).deliveries).toBe(1);
    expect((await chargedByAccount(database)).get(BigInt(user.id))).toBe(expectedCostNano(event));
  });
});
