import { usd } from '@gw/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createChild,
  expectConserved,
  ledgerOf,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { weakKeyProblem } from './api-key.js';
import { deleteAccount } from './delete-account.js';
import { DAY_MS } from './lots.js';
import { confirmPhrase, rotateKey } from './rotate-key.js';
import { updateAccount } from './update-account.js';

describe('money edge cases over the in-memory stores', () => {
  let world: MoneyWorld;
  /** [amount, days left] of each lot of an account, soonest first. */
  const expiries = (accountId: bigint): Array<[bigint, number]> =>
    [...world.store.tables().lots.values()]
      .filter((lot) => lot.accountId === accountId && lot.remainingNano > 0n)
      .map((lot): [bigint, number] => [
        lot.remainingNano,
        (lot.expiresAt.getTime() - world.clock.now().getTime()) / DAY_MS,
      ])
      .sort((a, b) => a[1] - b[1]);
  const move = (
    callerId: bigint,
    targetId: bigint,
    credit: bigint,
    extra: { days?: number; requestId?: string } = {},
  ) =>
    updateAccount(world.deps, {
      callerId,
      identifier: String(targetId),
      fields: {},
      creditGrantedNano: credit,
      days: extra.days,
      idempotencyKey: '',
      requestHash: 'a'.repeat(64),
      requestId: extra.requestId,
    });

  beforeEach(async () => {
    world = await moneyWorld();
  });

  afterEach(async () => {
    await expectConserved(world);
  });

  it('gives a child credit that keeps the expiry of the lots it came from, capped by Days', async () => {
    const parent = await createChild(world, world.root.id, usd(3), { days: 10 });
    await move(world.root.id, parent.account.id, usd(5), { days: 100 });
    const child = await createChild(world, parent.account.id, usd(4), { days: 50 });
    expect(expiries(child.account.id)).toEqual([
      [usd(3), 10],
      [usd(1), 50],
    ]);
    await move(parent.account.id, child.account.id, usd(2), { days: 365 });
    expect(expiries(child.account.id)).toEqual([
      [usd(3), 10],
      [usd(1), 50],
      [usd(2), 100],
    ]);
  });

  it('returns clawed-back and refunded credit with the expiry it had (refunds at most 180 days)', async () => {
    const parent = await createChild(world, world.root.id, usd(10), { days: 400 });
    const child = await createChild(world, parent.account.id, usd(6), { days: 20 });
    await move(parent.account.id, child.account.id, -usd(2), { days: 300 });
    // The 0.2 USD claw-back fee comes off the earliest-expiring piece.
    expect(expiries(parent.account.id)).toEqual([
      [usd('1.8'), 20],
      [usd(4), 400],
    ]);
    const other = await createChild(world, parent.account.id, usd(3), { days: 300 });
    await deleteAccount(world.deps, {
      callerId: parent.account.id,
      identifier: String(other.account.id),
      idempotencyKey: '',
      requestHash: '',
    });
    // The 3 USD came from the 20-day lot (1.8) and the 400-day lot (1.2, capped to 300 then 180);
    // the delete's fee comes off the 20-day piece.
    expect(expiries(parent.account.id)).toEqual([
      [usd('1.6'), 20],
      [usd('1.2'), 180],
      [usd('2.8'), 400],
    ]);
  });

  it('moves credit once for a request retried with the same request id, however often it arrives', async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    const child = await createChild(world, parent.account.id, usd(2));
    for (let attempt = 0; attempt < 3; attempt++) {
      await move(parent.account.id, child.account.id, usd(1), { requestId: 'req_retried' });
      await move(parent.account.id, child.account.id, -usd('0.5'), { requestId: 'req_clawed' });
    }
    expect(ledgerOf(world, `update:${parent.account.id}:req_retried:${'a'.repeat(64)}`)).toHaveLength(2);
    expect(expiries(child.account.id).reduce((sum, [amount]) => sum + amount, 0n)).toBe(usd('2.5'));
  });

  it('refuses amounts and limits out of range with 400 naming the field and range, changing nothing', async () => {
    const child = await createChild(world, world.root.id, usd(5));
    const before = world.store.tables();
    const big = 10n ** 30n;
    await expect(createChild(world, world.root.id, big)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'CreditGranted must be from 2 to 1000000000 USD',
    });
    await expect(createChild(world, world.root.id, -usd(5))).rejects.toMatchObject({
      message: expect.stringContaining('CreditGranted must not be negative'),
    });
    await expect(move(world.root.id, child.account.id, big)).rejects.toMatchObject({
      message: expect.stringContaining('CreditGranted must be from -1000000000 to 1000000000 USD'),
    });
    for (const [fields, text] of [
      [{ hardLimitNano: big }, 'HardLimit must be from 0 to 1000000000 USD'],
      [{ softLimitNano: -1n }, 'SoftLimit must not be negative'],
      [{ rpm: big }, 'RPM must be from 0 to'],
      [{ level: 1e30 }, 'Level must be an integer from 0 to 9'],
      [{ rates: 1e30 }, 'Rates must be a number above 0'],
    ] as const) {
      await expect(
        updateAccount(world.deps, {
          callerId: world.root.id,
          identifier: String(child.account.id),
          fields,
          creditGrantedNano: undefined,
          days: undefined,
          idempotencyKey: '',
          requestHash: '',
        }),
      ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining(text) });
    }
    await expect(move(world.root.id, child.account.id, usd(999_999_996))).rejects.toMatchObject({
      message: expect.stringContaining('would exceed 1000000000 USD'),
    });
    expect(world.store.tables().accounts).toEqual(before.accounts);
    expect(world.store.tables().lots).toEqual(before.lots);
  });

  it('logs a refused operation as failed, without secrets, naming no target', async () => {
    const child = await createChild(world, world.root.id, usd(5));
    const weak = 'sk-abcdefghijklmnopqrstuvwxyz0123456789';
    await expect(
      rotateKey(world.deps, {
        callerId: child.account.id,
        confirm: confirmPhrase(world.clock.now(), false),
        key: weak,
        root: false,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    const failed = world.audits.filter((entry) => entry.status === 'failed');
    expect(failed).toMatchObject([{ action: 'rotate_self', operatorId: child.account.id, targetId: 0n }]);
    expect(
      JSON.stringify(failed, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)),
    ).not.toContain(weak.slice(3, 15));
  });
});

describe('weakKeyProblem', () => {
  it('accepts a strong key and names the rule a weak one breaks, never repeating it', () => {
    expect(weakKeyProblem('Zq7-wP3_kX9mB2nR5tY8vC1dF4gH6jL0')).toBeUndefined();
    expect(weakKeyProblem('short1A')).toMatch(/32-128 characters/);
    expect(weakKeyProblem('abcdefghijklmnopqrstuvwxyz0123456789')).toMatch(/lower-case letters, upper-case/);
    expect(weakKeyProblem('aA1aA1aA1aA1aA1aA1aA1aA1aA1aA1aA1')).toMatch(/16 different/);
    expect(weakKeyProblem('Zq7wP3kX9mB2nR5tY8vC1dF4gH6jL0AAAAAA')).toMatch(/repeat/);
    expect(weakKeyProblem('sk-has spaces and = signs ABC123')).toMatch(/32-128 characters/);
  });
});
