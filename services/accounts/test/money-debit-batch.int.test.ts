import { accounts as pb } from '@gw/proto';
import { createUser, type Gateway } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { conservation } from './accounts-helpers.js';
import { cents, useMoneyGateway, type MoneyGateway } from './money-fixture.js';

/**
 * Accounts whose charges cover every path of a batch: two lots taken earliest expiry first, lots
 * running out into debt, HardLimit and SoftLimit crossed, and a deleted account whose usage
 * lands on its parent.
 */
async function twin(gw: Gateway) {
  const lots = await createUser(gw, { credit: 2 });
  const extra = await gw.request(`/x-users/${lots.id}`, {
    method: 'PUT',
    json: { CreditGranted: 1, Days: 10 },
  });
  expect(extra.status).toBe(200);
  const debt = await createUser(gw, { credit: 2 });
  const limited = await createUser(gw, { credit: 5, extra: { HardLimit: 1, SoftLimit: 0.5 } });
  const parent = await createUser(gw, { credit: 5 });
  const gone = await createUser(gw, { parentKey: parent.key, credit: 2 });
  const deleted = await gw.request(`/x-users/${gone.id}`, { method: 'DELETE', key: parent.key });
  expect(deleted.status).toBe(200);
  return {
    charged: [lots.id, debt.id, limited.id, gone.id],
    shown: [lots.id, debt.id, limited.id, parent.id],
  };
}

/** 40 charges over the twin's accounts, in the order both twins receive them. */
function itemsFor(ids: number[], tag: string): pb.DebitBatchItem[] {
  return Array.from({ length: 40 }, (_, n) => ({
    accountId: BigInt(ids[n % ids.length] ?? 0),
    amountNano: cents(35) + BigInt(n),
    idempotencyKey: `evt-${tag}-${n}`,
    description: 'gpt-4o-mini',
  }));
}

/** What charging leaves on the accounts: lots (earliest expiry first), debt and spend. */
async function moneyOf(money: MoneyGateway, ids: number[]) {
  const rows = await money.database.query<Record<string, string | boolean | null>>(
    `SELECT a.id::text, a.debt_nano::text, a.day_spend_nano::text, a.month_spend_nano::text,
            a.spend_blocked, a.soft_alert_month::text,
            (SELECT string_agg(l.remaining_nano::text, ',' ORDER BY l.expires_at, l.id)
               FROM accounts.credit_lots l WHERE l.account_id = a.id) AS lots
       FROM accounts.accounts a WHERE a.id = ANY($1::bigint[]) ORDER BY a.id`,
    [ids.map(String)],
  );
  return rows.map(({ id: _id, ...row }) => row);
}

describe('money: DebitBatch on PostgreSQL', () => {
  const money = useMoneyGateway();

  it('leaves the same lots, debt and spend as the same charges sent one Debit at a time', async () => {
    const one = await twin(money.gw);
    const batch = await twin(money.gw);
    for (const item of itemsFor(one.charged, `one-${one.charged[0]}`)) {
      await money.client.debit(item);
    }
    const items = itemsFor(batch.charged, `batch-${batch.charged[0]}`);
    const { results } = await money.client.debitBatch({ items });
    expect(results.map((result) => result.outcome)).toEqual(
      items.map(() => pb.DebitOutcome.DEBIT_OUTCOME_CHARGED),
    );
    // The deleted account's items landed on its parent.
    expect(results[3]?.chargedAccountId).toBe(BigInt(batch.shown[3] ?? 0));

    const charged = await moneyOf(money, batch.shown);
    expect(charged).toEqual(await moneyOf(money, one.shown));
    expect(charged.map((row) => row.spend_blocked)).toEqual([false, false, true, false]);
    // 3.5 USD each: the lots of the first two run out and the rest is debt.
    expect(charged.map((row) => row.debt_nano !== '0')).toEqual([true, true, false, false]);
    expect((await conservation(money.database)).difference).toBe(0n);

    // The same batch again replays every item and moves nothing.
    const again = await money.client.debitBatch({ items });
    expect(new Set(again.results.map((result) => result.outcome))).toEqual(
      new Set([pb.DebitOutcome.DEBIT_OUTCOME_REPLAYED]),
    );
    expect(await moneyOf(money, batch.shown)).toEqual(charged);
  });

  it('answers an unknown account and a reused key with another amount, and charges the rest', async () => {
    const user = await createUser(money.gw, { credit: 2 });
    const key = `evt-reused-${user.id}`;
    await money.client.debit({ accountId: BigInt(user.id), amountNano: cents(10), idempotencyKey: key });
    const { results } = await money.client.debitBatch({
      items: [
        { accountId: BigInt(user.id), amountNano: cents(20), idempotencyKey: key, description: 'm' },
        { accountId: 999_999_999n, amountNano: cents(20), idempotencyKey: `${key}-nobody`, description: 'm' },
        { accountId: BigInt(user.id), amountNano: cents(5), idempotencyKey: `${key}-new`, description: 'm' },
      ],
    });
    expect(results.map((result) => result.outcome)).toEqual([
      pb.DebitOutcome.DEBIT_OUTCOME_CONFLICT,
      pb.DebitOutcome.DEBIT_OUTCOME_NO_ACCOUNT,
      pb.DebitOutcome.DEBIT_OUTCOME_CHARGED,
    ]);
    const [row] = await moneyOf(money, [user.id]);
    expect(row?.lots).toBe(String(cents(185)));
    expect((await conservation(money.database)).difference).toBe(0n);
  });
});
