import { usd } from '@gw/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { transferCredit } from './transfer-credit.js';

describe('transferCredit over the in-memory stores', () => {
  let world: MoneyWorld;

  beforeEach(async () => {
    world = await moneyWorld();
  });

  afterEach(async () => {
    await expectConserved(world);
  });

  const transfer = (callerId: bigint, identifier: string, amountNano: bigint, idempotencyKey = '') =>
    transferCredit(world.deps, { callerId, identifier, amountNano, days: undefined, idempotencyKey });

  it('moves credit both ways between a caller and an account it manages, exactly, once per key', async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    expect(await transfer(parent.account.id, String(child.account.id), usd(3), 'tr-1')).toEqual({
      callerBalanceNano: usd(5),
      targetBalanceNano: usd(5),
    });
    expect(await transfer(parent.account.id, child.account.name, -usd('1.5'), 'tr-2')).toEqual({
      callerBalanceNano: usd('6.3'),
      targetBalanceNano: usd('3.5'),
    });
    const after = world.store.tables();
    const replay = await transfer(parent.account.id, String(child.account.id), usd(3), 'tr-1');
    expect(replay.targetBalanceNano).toBe(usd(5));
    expect(world.store.tables()).toEqual(after);
    expect(balanceNano(world, child.account.id)).toBe(usd('3.5'));
    await expect(transfer(parent.account.id, String(child.account.id), usd(1), 'tr-1')).rejects.toMatchObject(
      {
        code: 'conflict',
      },
    );
  });

  it('refuses a zero, overdrawn or out-of-scope transfer and moves nothing', async () => {
    const parent = await createChild(world, world.root.id, usd(4));
    const child = await createChild(world, parent.account.id, usd(2));
    const stranger = await createChild(world, world.root.id, usd(2));
    const before = world.store.tables();
    const codes = [];
    for (const [caller, target, amount] of [
      [parent.account.id, child.account.id, 0n],
      [parent.account.id, child.account.id, usd(3)],
      [parent.account.id, child.account.id, -usd(3)],
      [parent.account.id, stranger.account.id, usd(1)],
      [child.account.id, parent.account.id, usd(1)],
    ] as const) {
      codes.push(
        await transfer(caller, String(target), amount).then(
          () => 'moved',
          (error: unknown) => (error as { code: string }).code,
        ),
      );
    }
    expect(codes).toEqual([
      'invalid_request',
      'insufficient_credit',
      'insufficient_credit',
      'forbidden',
      'forbidden',
    ]);
    expect(world.store.tables()).toEqual(before);
  });
});
