import { usd } from '@gw/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  lotsOf,
  moneyWorld,
  requestHash,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { debit } from './debit.js';
import { updateAccount } from './update-account.js';

describe('updateAccount moving credit, over the in-memory stores', () => {
  let world: MoneyWorld;

  beforeEach(async () => {
    world = await moneyWorld();
  });

  afterEach(async () => {
    await expectConserved(world);
  });

  const move = (
    callerId: bigint,
    targetId: bigint,
    creditGrantedNano: bigint,
    options: { days?: number; idempotencyKey?: string } = {},
  ) =>
    updateAccount(world.deps, {
      callerId,
      identifier: String(targetId),
      fields: {},
      creditGrantedNano,
      days: options.days,
      idempotencyKey: options.idempotencyKey ?? '',
      requestHash: options.idempotencyKey ? requestHash(`PUT ${targetId} ${creditGrantedNano}`) : '',
    });

  it('recharges from the caller and claws back to it minus the 0.2 USD fee, earliest-expiring lots first, never below zero', async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    const recharged = await move(parent.account.id, child.account.id, usd(3), { days: 30 });
    expect(recharged.balanceNano).toBe(usd(5));
    expect(balanceNano(world, parent.account.id)).toBe(usd(5));
    expect(await lotsOf(world, child.account.id)).toEqual([usd(3), usd(2)]);

    const clawed = await move(parent.account.id, child.account.id, -usd('1.5'));
    expect(clawed.balanceNano).toBe(usd('3.5'));
    expect(await lotsOf(world, child.account.id)).toEqual([usd('1.5'), usd(2)]);
    expect(balanceNano(world, parent.account.id)).toBe(usd('6.3'));
    const fees = world.store.tables().ledger.filter((entry) => entry.kind === 'fee');
    expect(fees.map((entry) => [entry.accountId, entry.amountNano])).toEqual([
      [child.account.id, -usd('0.2')],
    ]);

    const before = world.store.tables();
    await expect(move(parent.account.id, child.account.id, -usd('3.6'))).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    await expect(move(parent.account.id, child.account.id, usd(100))).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    expect(world.store.tables()).toEqual(before);
  });

  it('un-mints what root claws back, less the fee', async () => {
    const child = await createChild(world, world.root.id, usd(4));
    await move(world.root.id, child.account.id, -usd(1));
    expect(balanceNano(world, child.account.id)).toBe(usd(3));
    const mints = world.store.tables().ledger.filter((entry) => entry.kind === 'mint');
    expect(mints.map((entry) => entry.amountNano)).toEqual([usd(4), -usd('0.8')]);
  });

  it('takes the whole of a claw-back of at most 0.2 USD as the fee', async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    await move(parent.account.id, child.account.id, -usd('0.15'));
    expect(balanceNano(world, child.account.id)).toBe(usd('1.85'));
    expect(balanceNano(world, parent.account.id)).toBe(usd(8));
    const fees = world.store.tables().ledger.filter((entry) => entry.kind === 'fee');
    expect(fees.map((entry) => entry.amountNano)).toEqual([-usd('0.15')]);
  });

  it('settles post-paid debt first on a recharge, and refuses a claw-back while in debt', async () => {
    const child = await createChild(world, world.root.id, usd(2));
    await debit(world.deps, { accountId: child.account.id, amountNano: usd(3), idempotencyKey: 'evt-1' });
    expect(balanceNano(world, child.account.id)).toBe(-usd(1));
    await expect(move(world.root.id, child.account.id, -usd('0.5'))).rejects.toMatchObject({
      code: 'insufficient_credit',
    });

    const recharged = await move(world.root.id, child.account.id, usd(2));
    expect(recharged.balanceNano).toBe(usd(1));
    expect(recharged.account.debtNano).toBe(0n);
    expect(await lotsOf(world, child.account.id)).toEqual([usd(1)]);
  });

  it('moves once per Idempotency-Key and refuses the key for another movement', async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    const first = await move(parent.account.id, child.account.id, usd(1), { idempotencyKey: 'recharge-1' });
    const after = world.store.tables();
    const replay = await move(parent.account.id, child.account.id, usd(1), { idempotencyKey: 'recharge-1' });
    expect(replay).toEqual({ ...first, replayed: true });
    expect(world.store.tables()).toEqual(after);
    expect(balanceNano(world, child.account.id)).toBe(usd(3));
    await expect(
      move(parent.account.id, child.account.id, usd(2), { idempotencyKey: 'recharge-1' }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(world.store.tables()).toEqual(after);
  });

  it('refuses a movement from a caller outside the target, moving nothing', async () => {
    const a = await createChild(world, world.root.id, usd(5));
    const b = await createChild(world, world.root.id, usd(5));
    const before = world.store.tables();
    await expect(move(a.account.id, b.account.id, usd(1))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(move(b.account.id, b.account.id, usd(1))).rejects.toMatchObject({ code: 'forbidden' });
    expect(world.store.tables()).toEqual(before);
  });
});
