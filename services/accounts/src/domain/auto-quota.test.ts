import { usd } from '@gw/kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { debitBatch } from './debit-batch.js';
import { debit } from './debit.js';

describe('AutoQuota over the in-memory stores', () => {
  let world: MoneyWorld;

  afterEach(async () => {
    await expectConserved(world);
  });

  const family = async (
    fields: { autoQuotaNano: bigint; hardLimitNano?: bigint },
    parentCredit = usd(20),
  ) => {
    world = await moneyWorld();
    const parent = await createChild(world, world.root.id, parentCredit);
    const child = await createChild(world, parent.account.id, usd(5), { fields });
    return { parentId: parent.account.id, childId: child.account.id };
  };
  const charge = (accountId: bigint, amountNano: bigint, idempotencyKey: string) =>
    debit(world.deps, { accountId, amountNano, idempotencyKey });

  it('tops an account below half its AutoQuota back up to it from the parent, logged and mailed', async () => {
    const { parentId, childId } = await family({ autoQuotaNano: usd(4) });
    await charge(childId, usd(2), 'evt-1');
    expect(balanceNano(world, childId)).toBe(usd(3));
    expect(balanceNano(world, parentId)).toBe(usd(15));

    await charge(childId, usd('1.5'), 'evt-2');
    expect(balanceNano(world, childId)).toBe(usd(4));
    expect(balanceNano(world, parentId)).toBe(usd('12.5'));
    const moved = world.store
      .tables()
      .ledger.filter((entry) => entry.idempotencyKey.startsWith('auto-quota:'));
    expect(moved.map((entry) => [entry.kind, entry.accountId, entry.amountNano])).toEqual([
      ['grant', parentId, -usd('2.5')],
      ['grant', childId, usd('2.5')],
    ]);
    expect(world.audits.at(-1)).toMatchObject({
      action: 'update_user',
      operatorId: parentId,
      targetId: childId,
      details: 'AutoQuota recharged 2.5 USD',
    });
    expect([...world.notices.values()]).toEqual([
      expect.objectContaining({
        accountId: childId,
        text: expect.stringContaining('recharged it with 2.5 USD'),
      }),
    ]);
    // Asked again, the same charge moves nothing more.
    await charge(childId, usd('1.5'), 'evt-2');
    expect(balanceNano(world, parentId)).toBe(usd('12.5'));
  });

  it('tops up once per charge batch, however many of its items the account has', async () => {
    const { parentId, childId } = await family({ autoQuotaNano: usd(4) });
    const items = [1, 2, 3].map((n) => ({
      accountId: childId,
      amountNano: usd('1.2'),
      idempotencyKey: `evt-${n}`,
      description: 'gpt-4o',
    }));
    await debitBatch(world.deps, items);
    expect(balanceNano(world, childId)).toBe(usd(4));
    expect(balanceNano(world, parentId)).toBe(usd('12.4'));
    await debitBatch(world.deps, items);
    expect(balanceNano(world, parentId)).toBe(usd('12.4'));
  });

  it('never tops up past what the month HardLimit still lets the account spend', async () => {
    const { parentId, childId } = await family({ autoQuotaNano: usd(4), hardLimitNano: usd(6) });
    await charge(childId, usd('3.5'), 'evt-1');
    // Spent 3.5 of 6 this month: it may hold at most 2.5, so 1 is added to its 1.5.
    expect(balanceNano(world, childId)).toBe(usd('2.5'));
    expect(balanceNano(world, parentId)).toBe(usd(14));
    await charge(childId, usd(2), 'evt-2');
    expect(balanceNano(world, childId)).toBe(usd('0.5'));
    expect(balanceNano(world, parentId)).toBe(usd(14));
  });

  it('moves nothing when the parent cannot pay, and tells the parent and the account once a day', async () => {
    const { parentId, childId } = await family({ autoQuotaNano: usd(4) }, usd(6));
    await charge(childId, usd(4), 'evt-1');
    await charge(childId, usd('0.1'), 'evt-2');
    expect(balanceNano(world, childId)).toBe(usd('0.9'));
    expect(balanceNano(world, parentId)).toBe(usd(1));
    const notices = [...world.notices.values()];
    expect(notices.map((notice) => notice.accountId)).toEqual([parentId, childId]);
    expect(notices[0]?.text).toContain('cannot pay the 3 USD recharge');
  });

  it('lets root pay by minting', async () => {
    world = await moneyWorld();
    const child = await createChild(world, world.root.id, usd(5), { fields: { autoQuotaNano: usd(10) } });
    await charge(child.account.id, usd(1), 'evt-1');
    expect(balanceNano(world, child.account.id)).toBe(usd(10));
  });
});
