import { AppError, ErrorCode } from '@gw/kit';
import { createUser } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { balanceNano, conservation } from './accounts-helpers.js';
import { cents, NANO, useMoneyGateway } from './money-fixture.js';

describe('money under concurrency: funded creations and duplicate Debits (PostgreSQL)', () => {
  const money = useMoneyGateway();

  it('never overdraws a parent under 100 concurrent funded creations, and conservation holds', async () => {
    // Enough for 50 grants of 2 USD and a half: exactly half of the 100 must be refused.
    const parent = await createUser(money.gw, { credit: 100.5 });
    // Each creation carries an Idempotency-Key, as a careful client's does: concurrent keyed
    // writes under one parent once deadlocked (500). On a busy machine a creation queued behind
    // the parent's lock may outlive the edge's deadline (503) and is retried with its key, which
    // settles it once.
    const create = async (index: number): Promise<Response> => {
      for (;;) {
        const response = await money.gw.request('/x-users', {
          method: 'POST',
          key: parent.key,
          headers: { 'Idempotency-Key': `burst-${parent.id}-${index}` },
          json: {
            Name: `burst${parent.id}n${index}`,
            Email: `burst${parent.id}n${index}@example.com`,
            CreditGranted: 2,
          },
        });
        if (response.status !== 503) {
          return response;
        }
        await response.arrayBuffer();
      }
    };
    const responses = await Promise.all(Array.from({ length: 100 }, (_, index) => create(index)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 400)).toHaveLength(50);
    expect(await balanceNano(money.database, parent.id)).toBe(500_000_000n);
    const [negative] = await money.database.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM accounts.credit_lots WHERE remaining_nano < 0',
    );
    expect(negative?.n).toBe('0');
    const [children] = await money.database.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM accounts.accounts WHERE parent_id = $1',
      [parent.id],
    );
    expect(children?.n).toBe('50');
    const check = await conservation(money.database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);
  });

  it('charges a Debit delivered 50 times concurrently once, and refuses the same key with another amount', async () => {
    const child = await createUser(money.gw, { credit: 5 });
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        money.client.debit({
          accountId: BigInt(child.id),
          amountNano: cents(1),
          idempotencyKey: `evt-dup-${child.id}`,
        }),
      ),
    );
    expect(new Set(replies.map((reply) => reply.ledgerId)).size).toBe(1);
    expect(replies.filter((reply) => !reply.replayed)).toHaveLength(1);
    const rows = await money.database.query(
      "SELECT id FROM accounts.ledger WHERE idempotency_key = $1 AND kind = 'usage'",
      [`evt-dup-${child.id}`],
    );
    expect(rows).toHaveLength(1);
    expect(await balanceNano(money.database, child.id)).toBe(5n * NANO - cents(1));

    const conflict = await money.client
      .debit({ accountId: BigInt(child.id), amountNano: cents(2), idempotencyKey: `evt-dup-${child.id}` })
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(AppError);
    expect((conflict as AppError).code).toBe(ErrorCode.Conflict);
    expect(
      await money.database.query('SELECT id FROM accounts.ledger WHERE idempotency_key = $1', [
        `evt-dup-${child.id}`,
      ]),
    ).toHaveLength(1);
    expect(await balanceNano(money.database, child.id)).toBe(5n * NANO - cents(1));

    for (const bad of [
      { accountId: BigInt(child.id), amountNano: -1n, idempotencyKey: 'neg' },
      { accountId: BigInt(child.id), amountNano: 1n, idempotencyKey: '' },
    ]) {
      const refused = await money.client.debit(bad).catch((error: unknown) => error);
      expect((refused as AppError).code).toBe(ErrorCode.InvalidRequest);
    }
    const missing = await money.client
      .debit({ accountId: 987_654n, amountNano: 1n, idempotencyKey: 'nobody' })
      .catch((error: unknown) => error);
    expect((missing as AppError).code).toBe(ErrorCode.NotFound);
    expect((await conservation(money.database)).difference).toBe(0n);
  });
});
