import { usd } from '@gw/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  lotsOf,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { checkConservation } from './check-conservation.js';
import { debit } from './debit.js';
import { getAccount } from './get-account.js';
import { updateAccount } from './update-account.js';

describe('credit expiry over the in-memory stores', () => {
  let world: MoneyWorld;

  beforeEach(async () => {
    world = await moneyWorld();
  });

  afterEach(async () => {
    await expectConserved(world);
  });

  it('stops counting a lot once it expires, in the balance, in Debit and in a grant, and reports it as expired', async () => {
    const parent = await createChild(world, world.root.id, usd(2));
    await updateAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(parent.account.id),
      fields: {},
      creditGrantedNano: usd(3),
      days: 1,
      idempotencyKey: '',
      requestHash: '',
    });
    expect(balanceNano(world, parent.account.id)).toBe(usd(5));

    world.clock.advanceDays(1);
    const view = await getAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(parent.account.id),
      includeSelf: false,
    });
    expect(view.balanceNano).toBe(usd(2));
    expect(view.lots.map((lot) => lot.remainingNano)).toEqual([usd(2)]);
    const { overall } = await checkConservation(world.deps, world.root.id);
    expect(overall.expiredNano).toBe(usd(3));

    // A grant cannot use the expired lot.
    await expect(createChild(world, parent.account.id, usd('2.5'))).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    // Debit takes the live lot and runs into debt rather than touch the expired one.
    const reply = await debit(world.deps, {
      accountId: parent.account.id,
      amountNano: usd('2.5'),
      idempotencyKey: 'evt-exp',
    });
    expect(reply.balanceNano).toBe(-usd('0.5'));
    expect(await lotsOf(world, parent.account.id)).toEqual([]);
    const expired = [...world.store.tables().lots.values()].filter(
      (lot) => lot.accountId === parent.account.id,
    );
    expect(expired.map((lot) => lot.remainingNano).sort()).toEqual([0n, usd(3)]);
    expect((await checkConservation(world.deps, world.root.id)).overall.expiredNano).toBe(usd(3));
  });
});
