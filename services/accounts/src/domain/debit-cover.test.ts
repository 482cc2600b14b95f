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
import { updateAccount } from './update-account.js';

describe('debit with requireCover (a paid query, not usage)', () => {
  let world: MoneyWorld;

  afterEach(async () => {
    await expectConserved(world);
  });

  const payFee = (accountId: bigint, amountNano: bigint, idempotencyKey: string) =>
    debit(world.deps, { accountId, amountNano, idempotencyKey, requireCover: true });

  it('refuses an amount the balance does not cover and takes nothing', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(2));
    await debit(world.deps, { accountId: child.account.id, amountNano: usd('1.97'), idempotencyKey: 'use' });
    await payFee(child.account.id, usd('0.02'), 'fee-a');
    await expect(payFee(child.account.id, usd('0.02'), 'fee-b')).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    expect(balanceNano(world, child.account.id)).toBe(usd('0.01'));
  });

  it('refuses an account already in debt', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(2));
    await debit(world.deps, { accountId: child.account.id, amountNano: usd('2.04'), idempotencyKey: 'use' });
    await expect(payFee(child.account.id, usd('0.01'), 'fee')).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    expect(balanceNano(world, child.account.id)).toBe(-usd('0.04'));
  });

  it('refuses a disabled or suspended account whatever its balance', async () => {
    world = await moneyWorld();
    for (const fields of [{ status: false }, { suspended: true }]) {
      const child = await createChild(world, world.root.id, usd(5));
      await updateAccount(world.deps, {
        callerId: world.root.id,
        identifier: String(child.account.id),
        fields,
        creditGrantedNano: undefined,
        days: undefined,
        idempotencyKey: '',
        requestHash: '',
      });
      await expect(payFee(child.account.id, usd('0.01'), `fee-${child.account.id}`)).rejects.toMatchObject({
        code: 'forbidden',
      });
      expect(balanceNano(world, child.account.id)).toBe(usd(5));
    }
  });

  it('replays a fee already paid rather than refusing it', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(2));
    await payFee(child.account.id, usd(2), 'fee');
    await expect(payFee(child.account.id, usd(2), 'fee')).resolves.toMatchObject({ replayed: true });
  });

  it('lets root pay: root mints credit', async () => {
    world = await moneyWorld();
    await expect(payFee(world.root.id, usd('0.05'), 'root-fee')).resolves.toMatchObject({ replayed: false });
  });
});
