import { usd } from '@gw/kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { debit } from './debit.js';
import { debitBatch, type DebitBatchItem } from './debit-batch.js';
import { deleteAccount } from './delete-account.js';

/** A world with three children of root: two plain, one with limits that a few charges cross. */
async function world3(): Promise<{ world: MoneyWorld; ids: bigint[] }> {
  const world = await moneyWorld({ apiBalanceFloorNano: usd('0.5') });
  const ids: bigint[] = [];
  for (const credit of [usd(2), usd(3)]) {
    ids.push((await createChild(world, world.root.id, credit)).account.id);
  }
  const limited = await createChild(world, world.root.id, usd(5), {
    fields: { hardLimitNano: usd(1), softLimitNano: usd('0.5') },
  });
  ids.push(limited.account.id);
  return { world, ids };
}

function itemsFor(ids: bigint[]): DebitBatchItem[] {
  const items: DebitBatchItem[] = [];
  for (let n = 0; n < 30; n++) {
    const accountId = ids[n % ids.length]!;
    items.push({
      accountId,
      amountNano: usd('0.1') + BigInt(n),
      idempotencyKey: `evt-${n}`,
      description: 'gpt-4o',
    });
  }
  return items;
}

describe('debitBatch over the in-memory stores', () => {
  let worlds: MoneyWorld[] = [];

  afterEach(async () => {
    for (const world of worlds) {
      await expectConserved(world);
    }
    worlds = [];
  });

  it('leaves the same lots, debt, spend, alerts and notices as charging the items one by one', async () => {
    const one = await world3();
    const batch = await world3();
    worlds = [one.world, batch.world];
    for (const item of itemsFor(one.ids)) {
      await debit(one.world.deps, item);
    }
    const results = await debitBatch(batch.world.deps, itemsFor(batch.ids));
    expect(results.every((result) => result.outcome === 'charged')).toBe(true);
    const view = (world: MoneyWorld) => ({
      accounts: [...world.store.tables().accounts.values()].map((account) => ({
        id: account.id,
        debt: account.debtNano,
        day: account.daySpendNano,
        month: account.monthSpendNano,
        blocked: account.spendBlocked,
      })),
      lots: [...world.store.tables().lots.values()].map((lot) => [lot.accountId, lot.remainingNano]),
      alerts: world.softLimitAlerts,
      notices: new Set(world.changed.map((event) => `${event.accountId}:${event.reason}`)),
    });
    expect(view(batch.world)).toEqual(view(one.world));
    expect(batch.world.softLimitAlerts).toHaveLength(1);
    expect(batch.world.changed.map((event) => event.reason)).toContain('spend_blocked');
  });

  it('charges each key once: a repeated batch and a duplicate inside a batch move nothing more', async () => {
    const { world, ids } = await world3();
    worlds = [world];
    const items = itemsFor(ids).slice(0, 4);
    await debitBatch(world.deps, items);
    const after = world.store.tables();
    const again = await debitBatch(world.deps, [...items, items[0]!]);
    expect(again.map((result) => result.outcome)).toEqual([
      'replayed',
      'replayed',
      'replayed',
      'replayed',
      'replayed',
    ]);
    expect(world.store.tables()).toEqual(after);

    const dup = { accountId: ids[0]!, amountNano: 7n, idempotencyKey: 'evt-twice', description: 'gpt-4o' };
    const before = balanceNano(world, ids[0]!);
    const results = await debitBatch(world.deps, [dup, dup]);
    expect(results.map((result) => result.outcome)).toEqual(['charged', 'charged']);
    expect(balanceNano(world, ids[0]!)).toBe(before - 7n);
  });

  it('answers a conflicting key and a missing account per item and still charges the rest', async () => {
    const { world, ids } = await world3();
    worlds = [world];
    await debit(world.deps, { accountId: ids[0]!, amountNano: 5n, idempotencyKey: 'evt-old' });
    const before = balanceNano(world, ids[1]!);
    const results = await debitBatch(world.deps, [
      { accountId: ids[0]!, amountNano: 6n, idempotencyKey: 'evt-old', description: 'm' },
      { accountId: 987_654n, amountNano: 1n, idempotencyKey: 'evt-nobody', description: 'm' },
      { accountId: ids[1]!, amountNano: 9n, idempotencyKey: 'evt-new', description: 'm' },
    ]);
    expect(results).toEqual([
      { idempotencyKey: 'evt-old', outcome: 'conflict', chargedAccountId: ids[0] },
      { idempotencyKey: 'evt-nobody', outcome: 'no_account', chargedAccountId: 0n },
      { idempotencyKey: 'evt-new', outcome: 'charged', chargedAccountId: ids[1] },
    ]);
    expect(balanceNano(world, ids[1]!)).toBe(before - 9n);
    await expect(
      debitBatch(world.deps, [
        { accountId: ids[0]!, amountNano: -1n, idempotencyKey: 'evt-neg', description: '' },
      ]),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('charges usage of a deleted account to its nearest live ancestor', async () => {
    const world = await moneyWorld();
    worlds = [world];
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    await deleteAccount(world.deps, {
      callerId: parent.account.id,
      identifier: String(child.account.id),
      idempotencyKey: '',
      requestHash: '',
    });
    const before = balanceNano(world, parent.account.id);
    const results = await debitBatch(world.deps, [
      { accountId: child.account.id, amountNano: usd('0.05'), idempotencyKey: 'evt-late', description: 'm' },
      { accountId: parent.account.id, amountNano: usd('0.01'), idempotencyKey: 'evt-own', description: 'm' },
    ]);
    expect(results.map((result) => result.chargedAccountId)).toEqual([parent.account.id, parent.account.id]);
    expect(balanceNano(world, parent.account.id)).toBe(before - usd('0.06'));
  });
});
