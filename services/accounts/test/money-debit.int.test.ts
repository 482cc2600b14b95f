import { createUser, expectError, waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { balanceNano, conservation } from './accounts-helpers.js';
import { cents, NANO, useMoneyGateway } from './money-fixture.js';

describe('money: Debit against lots, debt and limits, and the info that shows it (PostgreSQL)', () => {
  const money = useMoneyGateway();

  it('takes a balance below zero post-paid, settles the debt from the next credit, and spends the earliest lot first', async () => {
    const child = await createUser(money.gw, { credit: 2 });
    expect(
      (
        await money.gw.request(`/x-users/${child.id}`, {
          method: 'PUT',
          json: { CreditGranted: 1, Days: 10 },
        })
      ).status,
    ).toBe(200);
    // Lots: 2 (180 days) and 1 (10 days). 1.5 comes from the 10-day lot first (1), then 0.5.
    await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: 1_500_000_000n,
      idempotencyKey: `evt-a-${child.id}`,
    });
    const lots = await money.database.query<{ remaining_nano: string }>(
      'SELECT remaining_nano::text FROM accounts.credit_lots WHERE account_id = $1 ORDER BY expires_at',
      [child.id],
    );
    expect(lots.map((lot) => lot.remaining_nano)).toEqual(['0', '1500000000']);
    const reply = await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: 2n * NANO,
      idempotencyKey: `evt-b-${child.id}`,
    });
    expect(reply.balanceNano).toBe(-500_000_000n);
    expect(await balanceNano(money.database, child.id)).toBe(-500_000_000n);
    const info = (await (await money.gw.request('/dashboard/info', { key: child.key })).json()) as {
      balance: { total: number };
      usage: { today: { cost: number }; month: { cost: number } };
    };
    expect(info.balance.total).toBe(-0.5);
    expect(info.usage.today.cost).toBe(3.5);
    expect(info.usage.month.cost).toBe(3.5);
    expect(
      (await money.gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { CreditGranted: 2 } })).status,
    ).toBe(200);
    expect(await balanceNano(money.database, child.id)).toBe(1_500_000_000n);
    const [row] = await money.database.query<{ debt_nano: string }>(
      'SELECT debt_nano::text FROM accounts.accounts WHERE id = $1',
      [child.id],
    );
    expect(row?.debt_nano).toBe('0');
    expect((await conservation(money.database)).difference).toBe(0n);
  });

  it('marks the account at HardLimit and enqueues one SoftLimit mail per month', async () => {
    const child = await createUser(money.gw, { credit: 5, extra: { HardLimit: 1, SoftLimit: 0.5 } });
    const month = new Date().toISOString().slice(0, 7);
    const jobKey = `${money.gw.env.GW_QUEUE_PREFIX}:mail:soft-limit-${child.id}-${month}`;
    const first = await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(30),
      idempotencyKey: `evt-l1-${child.id}`,
    });
    expect(first.spendBlocked).toBe(false);
    expect(money.redisCli('EXISTS', jobKey)).toBe('0');
    await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(30),
      idempotencyKey: `evt-l2-${child.id}`,
    });
    await waitFor(async () => money.redisCli('EXISTS', jobKey) === '1', 'soft-limit job', 5_000, 50);
    const third = await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(50),
      idempotencyKey: `evt-l3-${child.id}`,
    });
    expect(third.spendBlocked).toBe(true);
    await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(10),
      idempotencyKey: `evt-l4-${child.id}`,
    });
    const jobs = money
      .redisCli('KEYS', `${money.gw.env.GW_QUEUE_PREFIX}:mail:soft-limit-${child.id}-*`)
      .split('\n')
      // The mailer may be sending it right now: its lock key is not a second job.
      .filter((line) => line !== '' && !line.endsWith(':lock'));
    expect(jobs).toEqual([jobKey]);
    expect(money.redisCli('HGET', jobKey, 'name')).toBe('soft-limit-alert');
    const [row] = await money.database.query<{ spend_blocked: boolean; month_spend_nano: string }>(
      'SELECT spend_blocked, month_spend_nano::text FROM accounts.accounts WHERE id = $1',
      [child.id],
    );
    expect(row).toEqual({ spend_blocked: true, month_spend_nano: String(cents(120)) });
    // Raising HardLimit lifts the mark.
    expect(
      (await money.gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { HardLimit: 10 } })).status,
    ).toBe(200);
    const [lifted] = await money.database.query<{ spend_blocked: boolean }>(
      'SELECT spend_blocked FROM accounts.accounts WHERE id = $1',
      [child.id],
    );
    expect(lifted?.spend_blocked).toBe(false);
  });

  it('stops counting a lot once it expires, in balance and Debit alike, and counts it as expired', async () => {
    const child = await createUser(money.gw, { credit: 2 });
    expect(
      (await money.gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { CreditGranted: 1, Days: 1 } }))
        .status,
    ).toBe(200);
    const before = await conservation(money.database);
    // Move the 1-day lot's expiry into the past (the processes read the real clock).
    await money.database.query(
      "UPDATE accounts.credit_lots SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND granted_nano = $2",
      [child.id, String(NANO)],
    );
    const shown = (await (await money.gw.request(`/x-users/${child.id}`)).json()) as {
      users: Array<{ Balance: number; CreditBalance: unknown[] }>;
    };
    expect(shown.users[0]?.Balance).toBe(2);
    expect(shown.users[0]?.CreditBalance).toHaveLength(1);
    const reply = await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: 2_500_000_000n,
      idempotencyKey: `evt-exp-${child.id}`,
    });
    expect(reply.balanceNano).toBe(-500_000_000n);
    const after = await conservation(money.database);
    expect(after.expired - before.expired).toBe(NANO);
    expect(after.difference).toBe(0n);
  });

  it('charges usage of a deleted account to its parent', async () => {
    const parent = await createUser(money.gw, { credit: 10 });
    const child = await createUser(money.gw, { parentKey: parent.key, credit: 2 });
    expect(
      (await money.gw.request(`/x-users/${child.id}`, { method: 'DELETE', key: parent.key })).status,
    ).toBe(200);
    const parentBefore = await balanceNano(money.database, parent.id);
    await money.client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(5),
      idempotencyKey: `evt-late-${child.id}`,
    });
    expect(await balanceNano(money.database, parent.id)).toBe(parentBefore - cents(5));
    expect((await conservation(money.database)).difference).toBe(0n);
  });

  it('answers /dashboard/info (and the old path) and /x-info for owners only, in scope only', async () => {
    const child = await createUser(money.gw, { credit: 3, extra: { AllowModels: 'gpt-4o o3', RPM: 10 } });
    const grandchild = await createUser(money.gw, { parentKey: child.key, credit: 2 });
    for (const path of ['/dashboard/info', '/dashboard/x-user-info']) {
      const response = await money.gw.request(path, { key: child.key });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        object: 'user_info',
        user: { id: child.id, name: child.name, dna: child.dna },
        balance: { total: 1 },
        limits: { rpm: 10 },
        restrictions: { allow_models: ['gpt-4o', 'o3'] },
      });
      expect(JSON.stringify(body)).not.toContain(child.key);
    }
    const info = await money.gw.request(`/x-info?user=${grandchild.id}`);
    expect(info.status).toBe(200);
    expect(((await info.json()) as { user: { id: number } }).user.id).toBe(grandchild.id);
    await expectError(
      await money.gw.request(`/x-info?user=${grandchild.id}`, { key: child.key }),
      403,
      'forbidden',
    );
    await expectError(await money.gw.request('/x-info?user=987654'), 404, 'not_found');
  });
});
