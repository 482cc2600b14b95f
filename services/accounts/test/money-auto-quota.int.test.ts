import { usd } from '@gw/kit';
import { createAccountByRpc, waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { balanceNano, conservation } from './accounts-helpers.js';
import { cents, NANO, useMoneyService } from './money-fixture.js';

describe('AutoQuota under concurrent DebitBatch calls (PostgreSQL)', () => {
  const money = useMoneyService();

  it('tops the account up from its parent at most once per batch, exactly, and conservation holds', async () => {
    const parent = await createAccountByRpc(money.service, { credit: 100 });
    const child = await createAccountByRpc(money.service, {
      parentId: BigInt(parent.id),
      credit: 5,
      fields: { autoQuotaNano: usd(4) },
    });
    // 20 batches at once, each charging the child 1.5 USD in three items and the parent once.
    const batches = Array.from({ length: 20 }, (_, batch) => [
      ...[0, 1, 2].map((n) => ({
        accountId: BigInt(child.id),
        amountNano: cents(50),
        idempotencyKey: `evt-aq-${batch}-${n}`,
        description: 'gpt-4o-mini',
      })),
      {
        accountId: BigInt(parent.id),
        amountNano: cents(1),
        idempotencyKey: `evt-aq-${batch}-p`,
        description: 'gpt-4o',
      },
    ]);
    await Promise.all(batches.map((items) => money.service.client.debitBatch({ items })));

    const grants = await money.database.query<{ amount_nano: string }>(
      "SELECT amount_nano::text FROM accounts.ledger WHERE idempotency_key LIKE 'auto-quota:%' AND account_id = $1 AND kind = 'grant'",
      [child.id],
    );
    expect(grants.length).toBeGreaterThan(0);
    expect(grants.length).toBeLessThanOrEqual(batches.length);
    const toppedUp = grants.reduce((sum, row) => sum + BigInt(row.amount_nano), 0n);
    const childBalance = await balanceNano(money.database, child.id);
    // Every charge is paid, every top-up moved from the parent: nothing made or lost.
    expect(childBalance).toBe(5n * NANO - 20n * cents(150) + toppedUp);
    expect(await balanceNano(money.database, parent.id)).toBe(95n * NANO - 20n * cents(1) - toppedUp);
    // The last batch's top-up ran after its charge: the account is not left below half its quota.
    expect(childBalance).toBeGreaterThanOrEqual(2n * NANO);
    expect(childBalance).toBeLessThanOrEqual(4n * NANO);
    const check = await conservation(money.database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);

    // One operation-log entry and one mail to the child's BillingEmail per top-up.
    await waitFor(async () => {
      const rows = await money.database.query(
        "SELECT id FROM accounts.operation_log WHERE target_id = $1 AND details LIKE 'AutoQuota recharged%'",
        [child.id],
      );
      return rows.length === grants.length;
    }, 'the operation-log entries');
    const jobs = money.redisCli(
      '--scan',
      '--pattern',
      `${money.service.env.GW_QUEUE_PREFIX}:*:auto-quota-${child.id}-*`,
    );
    expect(new Set(jobs.split('\n').map((key) => key.split(':')[2])).size).toBe(grants.length);
  });
});
