import { usd } from '@gw/kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  lotsOf,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { crossedFloor, debit } from './debit.js';
import { deleteAccount } from './delete-account.js';
import { getAccount } from './get-account.js';
import { updateAccount } from './update-account.js';

describe('crossedFloor', () => {
  it('is true only for the debit that takes the balance from above the floor to at or below it', () => {
    expect(crossedFloor(0n, 5n, 0n)).toBe(true);
    expect(crossedFloor(-3n, 5n, 0n)).toBe(true);
    expect(crossedFloor(1n, 5n, 0n)).toBe(false);
    expect(crossedFloor(-3n, 2n, 0n)).toBe(false);
    expect(crossedFloor(10n, 5n, 10n)).toBe(true);
    expect(crossedFloor(10n, 0n, 10n)).toBe(false);
  });
});

describe('debit over the in-memory stores', () => {
  let world: MoneyWorld;

  afterEach(async () => {
    await expectConserved(world);
  });

  const charge = (accountId: bigint, amountNano: bigint, idempotencyKey: string) =>
    debit(world.deps, { accountId, amountNano, idempotencyKey });

  it('pays from the earliest-expiring lot first and turns what the lots cannot cover into debt', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(2));
    await updateAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(child.account.id),
      fields: {},
      creditGrantedNano: usd(1),
      days: 10,
      idempotencyKey: '',
      requestHash: '',
    });
    expect(await lotsOf(world, child.account.id)).toEqual([usd(1), usd(2)]);
    await charge(child.account.id, usd('1.5'), 'evt-a');
    expect(await lotsOf(world, child.account.id)).toEqual([usd('1.5')]);
    const reply = await charge(child.account.id, usd(2), 'evt-b');
    expect(reply).toMatchObject({ accountId: child.account.id, balanceNano: -usd('0.5'), replayed: false });
    expect(await lotsOf(world, child.account.id)).toEqual([]);
    expect(world.store.tables().accounts.get(child.account.id)?.debtNano).toBe(usd('0.5'));
    const view = await getAccount(world.deps, {
      callerId: child.account.id,
      identifier: String(child.account.id),
      includeSelf: true,
    });
    expect(view.account).toMatchObject({ daySpendNano: usd('3.5'), monthSpendNano: usd('3.5') });
  });

  it('charges one usage event once: a replay answers the first row, another amount is a conflict', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(5));
    const first = await charge(child.account.id, usd('0.01'), 'evt-dup');
    const after = world.store.tables();
    const replay = await charge(child.account.id, usd('0.01'), 'evt-dup');
    expect(replay).toEqual({ ...first, replayed: true });
    expect(world.store.tables()).toEqual(after);
    await expect(charge(child.account.id, usd('0.02'), 'evt-dup')).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(charge(child.account.id, -1n, 'evt-neg')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(charge(child.account.id, 1n, '')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(charge(987_654n, 1n, 'evt-nobody')).rejects.toMatchObject({ code: 'not_found' });
    expect(world.store.tables()).toEqual(after);
    expect(balanceNano(world, child.account.id)).toBe(usd(5) - usd('0.01'));
  });

  it('charges usage of a deleted account to its nearest live ancestor', async () => {
    world = await moneyWorld();
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    await deleteAccount(world.deps, {
      callerId: parent.account.id,
      identifier: String(child.account.id),
      idempotencyKey: '',
      requestHash: '',
    });
    const before = balanceNano(world, parent.account.id);
    const reply = await charge(child.account.id, usd('0.05'), 'evt-late');
    expect(reply.accountId).toBe(parent.account.id);
    expect(balanceNano(world, parent.account.id)).toBe(before - usd('0.05'));
  });

  it('blocks spending at HardLimit and asks for one SoftLimit alert per month', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(5), {
      fields: { hardLimitNano: usd(1), softLimitNano: usd('0.5') },
    });
    const id = child.account.id;
    expect((await charge(id, usd('0.3'), 'evt-l1')).spendBlocked).toBe(false);
    expect(world.softLimitAlerts).toEqual([]);
    await charge(id, usd('0.3'), 'evt-l2');
    expect(world.softLimitAlerts).toEqual([{ accountId: id, month: '2026-03' }]);
    expect((await charge(id, usd('0.5'), 'evt-l3')).spendBlocked).toBe(true);
    expect(world.changed).toContainEqual({ accountId: id, reason: 'spend_blocked', keyHash: undefined });
    await charge(id, usd('0.1'), 'evt-l4');
    expect(world.softLimitAlerts).toHaveLength(1);

    // A new month starts from zero: the spend reads as zero and the next crossing alerts again.
    world.clock.advanceDays(31);
    const view = await getAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(id),
      includeSelf: false,
    });
    expect(view.account).toMatchObject({ daySpendNano: 0n, monthSpendNano: 0n });
    expect((await charge(id, usd('0.6'), 'evt-l5')).spendBlocked).toBe(false);
    expect(world.softLimitAlerts).toEqual([
      { accountId: id, month: '2026-03' },
      { accountId: id, month: '2026-04' },
    ]);
  });

  it('announces balance_low once, for the debit that reaches the AI balance floor', async () => {
    world = await moneyWorld({ apiBalanceFloorNano: usd('0.5') });
    const child = await createChild(world, world.root.id, usd(2));
    const lowNotices = () => world.changed.filter((event) => event.reason === 'balance_low');
    await charge(child.account.id, usd(1), 'evt-f1');
    expect(lowNotices()).toEqual([]);
    await charge(child.account.id, usd('0.5'), 'evt-f2');
    expect(lowNotices()).toEqual([
      { accountId: child.account.id, reason: 'balance_low', keyHash: undefined },
    ]);
    await charge(child.account.id, usd('0.5'), 'evt-f3');
    expect(lowNotices()).toHaveLength(1);
  });
});
