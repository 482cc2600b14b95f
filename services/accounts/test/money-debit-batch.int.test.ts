import { usd } from '@gw/kit';
import { accounts as pb } from '@gw/proto';
import { createAccountByRpc, holdUncommitted, rootAccountId, waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { conservation } from './accounts-helpers.js';
import { cents, useMoneyService, type MoneyService } from './money-fixture.js';

/** What the edge sends beside a management call: no idempotency key, the caller's address. */
const UNKEYED = { idempotencyKey: '', ipAddress: '127.0.0.1', requestHash: '' };

/**
 * Accounts whose charges cover every path of a batch: two lots taken earliest expiry first, lots
 * running out into debt, HardLimit and SoftLimit crossed, and a deleted account whose usage
 * lands on its parent.
 */
async function twin({ service }: MoneyService) {
  const lots = await createAccountByRpc(service, { credit: 2 });
  await service.client.updateAccount({
    callerId: await rootAccountId(service),
    identifier: String(lots.id),
    creditGrantedNano: usd(1),
    days: 10,
    ...UNKEYED,
  });
  const debt = await createAccountByRpc(service, { credit: 2 });
  const limited = await createAccountByRpc(service, {
    credit: 5,
    fields: { hardLimitNano: usd(1), softLimitNano: usd(0.5) },
  });
  const parent = await createAccountByRpc(service, { credit: 5 });
  const gone = await createAccountByRpc(service, { parentId: BigInt(parent.id), credit: 2 });
  const deleted = await service.client.deleteAccount({
    callerId: BigInt(parent.id),
    identifier: String(gone.id),
    ...UNKEYED,
  });
  expect(deleted.id).toBe(BigInt(gone.id));
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
async function moneyOf(money: MoneyService, ids: number[]) {
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
  const money = useMoneyService();

  it('leaves the same lots, debt and spend as the same charges sent one Debit at a time', async () => {
    const one = await twin(money);
    const batch = await twin(money);
    for (const item of itemsFor(one.charged, `one-${one.charged[0]}`)) {
      await money.service.client.debit(item);
    }
    const items = itemsFor(batch.charged, `batch-${batch.charged[0]}`);
    const { results } = await money.service.client.debitBatch({ items });
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
    const again = await money.service.client.debitBatch({ items });
    expect(new Set(again.results.map((result) => result.outcome))).toEqual(
      new Set([pb.DebitOutcome.DEBIT_OUTCOME_REPLAYED]),
    );
    expect(await moneyOf(money, batch.shown)).toEqual(charged);
  });

  it('answers an unknown account and a reused key with another amount, and charges the rest', async () => {
    const user = await createAccountByRpc(money.service, { credit: 2 });
    const key = `evt-reused-${user.id}`;
    await money.service.client.debit({
      accountId: BigInt(user.id),
      amountNano: cents(10),
      idempotencyKey: key,
    });
    const { results } = await money.service.client.debitBatch({
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

  it('charges nothing when its ledger row cannot be written', async () => {
    const user = await createAccountByRpc(money.service, { credit: 2 });
    const key = `evt-written-elsewhere-${user.id}`;
    const before = await moneyOf(money, [user.id]);
    // Another writer's row for the same key, account and kind, not committed yet: the batch reads no
    // such key, and its own insert then waits on the unique index until that writer commits.
    const commit = await holdUncommitted(
      money.database.url,
      `INSERT INTO accounts.ledger (idempotency_key, kind, account_id, amount_nano, created_at)
       VALUES ($1, 'usage', $2, $3, now())`,
      [key, user.id, String(-cents(20))],
    );
    const item = { accountId: BigInt(user.id), amountNano: cents(20), idempotencyKey: key, description: 'm' };
    const answered = money.service.client.debitBatch({ items: [item] }).then(
      (answer) => answer,
      (error: unknown) => error,
    );
    await waitFor(async () => {
      const [waiting] = await money.database.query<{ n: number }>(
        // Other test files' databases share the server: only a wait in this one counts.
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'transactionid'`,
      );
      return (waiting?.n ?? 0) > 0;
    }, 'the batch waiting on the uncommitted row');
    await commit();
    // The batch fails rather than take the money without a row of its own; a retry finds the key.
    expect(await answered).toBeInstanceOf(Error);
    expect(await moneyOf(money, [user.id])).toEqual(before);
    const again = await money.service.client.debitBatch({ items: [item] });
    expect(again.results.map((result) => result.outcome)).toEqual([pb.DebitOutcome.DEBIT_OUTCOME_REPLAYED]);
    expect(await moneyOf(money, [user.id])).toEqual(before);
  });
});
