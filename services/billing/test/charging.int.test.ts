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
  rollupsAndRecords,
  usageDrained,
  usageEvent,
} from './usage-helpers.js';

const ACCOUNTS = 200;
const EVENTS = 10_000;
const MODELS = ['gpt-4o-mini', 'gpt-4.1'];

describe('billing charges gw.usage.recorded', () => {
  let billing: StartedService<'billing'>;
  let database: TestDatabase;
  let nc: NatsConnection;
  let rootId: bigint;

  beforeAll(async () => {
    database = await createTestDatabase();
    billing = await startService('billing', {
      databaseUrl: database.url,
      with: ['accounts', 'config'],
      // Small batches and a short redelivery wait: more batches for the kills to land in, and
      // what a killed billing had pulled comes back soon.
      env: { BILLING_BATCH_SIZE: '100', BILLING_ACK_WAIT_MS: '2000' },
    });
    nc = await connectNats(billing.natsUrl, 'billing-test', createLogger('billing-test'));
    rootId = await rootAccountId(billing);
  }, 120_000);

  afterAll(async () => {
    await nc.close();
    await billing.stop();
    await database.drop();
  });

  const recordCount = async () =>
    Number(
      (await database.query<{ n: string }>('SELECT count(*)::text AS n FROM billing.usage_records'))[0]?.n,
    );

  it('charges 10 000 events exactly once through three SIGKILLs: Σ charged = Σ costs, rollups = records', async () => {
    const accounts: bigint[] = [];
    for (let start = 0; start < ACCOUNTS; start += 20) {
      const created = await Promise.all(
        Array.from({ length: Math.min(20, ACCOUNTS - start) }, () =>
          createAccountByRpc(billing, { parentId: rootId, credit: 3 }),
        ),
      );
      accounts.push(...created.map((user) => BigInt(user.id)));
    }
    const all = Array.from({ length: EVENTS }, (_, n) =>
      usageEvent({
        eventId: `evt_kill_${n}`,
        accountId: accounts[n % ACCOUNTS] ?? 0n,
        ownerId: rootId,
        model: MODELS[n % MODELS.length] ?? '',
        promptTokens: 1 + ((n * 7919) % 3000),
        completionTokens: (n * 104_729) % 1500,
      }),
    );
    const expected = new Map<bigint, bigint>();
    for (const event of all) {
      expected.set(event.accountId, (expected.get(event.accountId) ?? 0n) + expectedCostNano(event));
    }
    const publish = async (from: number, to: number) => {
      for (let start = from; start < to; start += 500) {
        await Promise.all(
          all.slice(start, Math.min(start + 500, to)).map((event) => publishUsage(nc, event)),
        );
      }
    };

    // Five slices of 2000. Billing is SIGKILLed three times while a slice is being charged;
    // the next slice is published while it is down.
    const slice = (k: number) => publish(k * 2000, (k + 1) * 2000);
    await slice(0);
    for (let kill = 0; kill < 3; kill++) {
      const target = kill * 2000 + 300;
      await waitFor(async () => (await recordCount()) >= target, `records past ${target}`, 60_000, 5).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}\n${billing.output().slice(-4000)}`);
        },
      );
      await billing.kill();
      await slice(kill + 1);
      if (kill === 2) {
        await slice(4);
      }
      await billing.restart();
    }
    // The same event published again under another message id (a duplicate the stream cannot drop).
    for (const event of all.slice(0, 50)) {
      await publishUsage(nc, event, `${event.eventId}-again`);
    }

    await waitFor(
      async () => (await usageDrained(nc)) && (await recordCount()) === EVENTS,
      'every event charged and acknowledged',
      120_000,
      200,
    );
    expect(await recordCount()).toBe(EVENTS);
    const charged = await chargedByAccount(database);
    expect(charged).toEqual(expected);
    const [ledger] = await database.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM accounts.ledger WHERE kind = 'usage'`,
    );
    expect(Number(ledger?.n)).toBe(EVENTS);
    const { fromRecords, rollups } = await rollupsAndRecords(database);
    expect(rollups).toEqual(fromRecords);
    expect(rollups.length).toBeGreaterThanOrEqual(ACCOUNTS);
  }, 600_000);

  it('charges usage of an account deleted meanwhile to its parent', async () => {
    const parent = await createAccountByRpc(billing, { parentId: rootId, credit: 10 });
    const child = await createAccountByRpc(billing, { parentId: BigInt(parent.id), credit: 2 });
    const deleted = await billing.clientOf('accounts').deleteAccount({
      callerId: BigInt(parent.id),
      identifier: String(child.id),
      idempotencyKey: '',
      ipAddress: '127.0.0.1',
      requestHash: '',
    });
    expect(deleted.id).toBe(BigInt(child.id));
    const event = usageEvent({
      eventId: 'evt_after_delete',
      accountId: BigInt(child.id),
      ownerId: rootId,
      model: 'gpt-4o-mini',
      promptTokens: 1000,
      completionTokens: 100,
    });
    await publishUsage(nc, event);
    await waitFor(
      async () => (await chargedByAccount(database)).has(BigInt(parent.id)),
      'the late usage charged',
      60_000,
      50,
    ).catch(async (error: unknown) => {
      const rows = await database.query(
        `SELECT * FROM billing.usage_records WHERE event_id = 'evt_after_delete'`,
      );
      throw new Error(`${String(error)} ${JSON.stringify(rows)}\n${billing.output().slice(-3000)}`);
    });
    const charged = await chargedByAccount(database);
    expect(charged.get(BigInt(parent.id))).toBe(expectedCostNano(event));
    expect(charged.has(BigInt(child.id))).toBe(false);
    // The record and the rollup stay the child's: its usage, paid by its parent.
    const [record] = await database.query<{ account_id: string }>(
      `SELECT account_id::text FROM billing.usage_records WHERE event_id = 'evt_after_delete'`,
    );
    expect(record?.account_id).toBe(String(child.id));
  });
});
