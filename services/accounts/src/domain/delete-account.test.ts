import { usd } from '@gw/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  balanceNano,
  createChild,
  expectConserved,
  ledgerOf,
  lotsOf,
  moneyWorld,
  requestHash,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { debit } from './debit.js';
import { deleteAccount, mayDelete, refundOf } from './delete-account.js';
import { DAY_MS } from './lots.js';
import type { AccountRecord } from './model.js';
import { updateAccount } from './update-account.js';

const account = (overrides: Partial<AccountRecord>) =>
  ({ id: 1n, parentId: null, dna: '.1.', isOwner: false, isRoot: false, ...overrides }) as AccountRecord;

describe('refundOf', () => {
  it('takes a fee of min(0.2 USD, remainder) and never refunds below zero', () => {
    expect(refundOf(5_000_000_000n)).toEqual({ refundNano: 4_800_000_000n, feeNano: 200_000_000n });
    expect(refundOf(200_000_000n)).toEqual({ refundNano: 0n, feeNano: 200_000_000n });
    expect(refundOf(150_000_000n)).toEqual({ refundNano: 0n, feeNano: 150_000_000n });
    expect(refundOf(0n)).toEqual({ refundNano: 0n, feeNano: 0n });
    expect(refundOf(-5n)).toEqual({ refundNano: 0n, feeNano: 0n });
  });
});

describe('mayDelete', () => {
  const root = account({ id: 1n, dna: '.1.', isRoot: true, isOwner: true });
  const parent = account({ id: 2n, parentId: 1n, dna: '.1.2.' });
  const child = account({ id: 3n, parentId: 2n, dna: '.1.2.3.' });
  const grandchild = account({ id: 4n, parentId: 3n, dna: '.1.2.3.4.' });
  const owner = account({ id: 5n, parentId: 1n, dna: '.1.5.', isOwner: true });

  it('lets the parent and an owner or root above delete', () => {
    expect(mayDelete(parent, child)).toBe(true);
    expect(mayDelete(root, grandchild)).toBe(true);
  });

  it('refuses a grandparent that is not an owner, the account itself, its child and an owner of another tree', () => {
    expect(mayDelete(parent, grandchild)).toBe(false);
    expect(mayDelete(child, child)).toBe(false);
    expect(mayDelete(grandchild, child)).toBe(false);
    expect(mayDelete(owner, child)).toBe(false);
  });
});

describe('deleteAccount over the in-memory stores', () => {
  let world: MoneyWorld;
  let parent: { account: AccountRecord; secretKey: string };

  beforeEach(async () => {
    world = await moneyWorld();
    parent = await createChild(world, world.root.id, usd(20));
  });

  afterEach(async () => {
    await expectConserved(world);
  });

  const remove = (callerId: bigint, target: bigint, idempotencyKey = '') =>
    deleteAccount(world.deps, {
      callerId,
      identifier: String(target),
      idempotencyKey,
      requestHash: idempotencyKey ? requestHash(`DELETE ${target}`) : '',
    });

  it('refunds the remainder minus the fee to the parent as a 180-day lot, and frees the name and key', async () => {
    const child = await createChild(world, parent.account.id, usd(5));
    const deleted = await remove(parent.account.id, child.account.id);
    expect(deleted).toMatchObject({ refundedNano: usd('4.8'), feeNano: usd('0.2'), replayed: false });
    expect(balanceNano(world, parent.account.id)).toBe(usd(15) + usd('4.8'));
    expect(balanceNano(world, child.account.id)).toBe(0n);
    const refundLot = (await world.store.lots.live([parent.account.id], world.clock.now())).at(-1);
    expect(refundLot).toMatchObject({ remainingNano: usd('4.8') });
    expect(refundLot?.expiresAt.getTime()).toBe(world.clock.now().getTime() + 180 * DAY_MS);
    expect(
      ledgerOf(world, `delete:${child.account.id}`).map((entry) => [
        entry.kind,
        entry.accountId,
        entry.amountNano,
      ]),
    ).toEqual([
      ['refund', child.account.id, -usd('4.8')],
      ['refund', parent.account.id, usd('4.8')],
      ['fee', child.account.id, -usd('0.2')],
    ]);
    expect(await world.store.accounts.findById(child.account.id)).toBeUndefined();
    expect(await world.store.accounts.findByKeyHash(child.account.keyHash)).toBeUndefined();
    expect(world.changed).toContainEqual({
      accountId: child.account.id,
      reason: 'deleted',
      keyHash: child.account.keyHash,
    });
    // The name is free again.
    await createChild(world, parent.account.id, usd(2), {
      fields: { name: child.account.name, email: child.account.email },
    });
  });

  it('keeps only the fee when the remainder is at most 0.2 USD', async () => {
    const child = await createChild(world, parent.account.id, usd(5));
    await updateAccount(world.deps, {
      callerId: parent.account.id,
      identifier: String(child.account.id),
      fields: {},
      creditGrantedNano: -usd('4.85'),
      days: undefined,
      idempotencyKey: '',
      requestHash: '',
    });
    const before = balanceNano(world, parent.account.id);
    expect(await remove(parent.account.id, child.account.id)).toMatchObject({
      refundedNano: 0n,
      feeNano: usd('0.15'),
    });
    expect(balanceNano(world, parent.account.id)).toBe(before);
  });

  it("moves an indebted account's debt to the parent in the same transaction, writing nothing off", async () => {
    const child = await createChild(world, parent.account.id, usd(2));
    await debit(world.deps, { accountId: child.account.id, amountNano: usd(3), idempotencyKey: 'evt-debt' });
    const before = balanceNano(world, parent.account.id);
    expect(await remove(parent.account.id, child.account.id)).toMatchObject({
      refundedNano: 0n,
      feeNano: 0n,
      debtMovedNano: usd(1),
    });
    expect(balanceNano(world, parent.account.id)).toBe(before - usd(1));
    expect(world.store.tables().accounts.get(child.account.id)?.debtNano).toBe(0n);
    expect(ledgerOf(world, `delete:${child.account.id}`)).toMatchObject([
      { kind: 'debt', accountId: child.account.id, amountNano: usd(1) },
      { kind: 'debt', accountId: parent.account.id, amountNano: -usd(1) },
    ]);
  });

  it('lets a parent without the credit owe the moved debt, and root mint it', async () => {
    const poor = await createChild(world, parent.account.id, usd(2));
    const child = await createChild(world, poor.account.id, usd(2));
    await debit(world.deps, { accountId: child.account.id, amountNano: usd(5), idempotencyKey: 'evt-deep' });
    await remove(poor.account.id, child.account.id);
    expect(balanceNano(world, poor.account.id)).toBe(-usd(3));
    expect(world.store.tables().accounts.get(poor.account.id)?.debtNano).toBe(usd(3));

    const direct = await createChild(world, world.root.id, usd(2));
    await debit(world.deps, { accountId: direct.account.id, amountNano: usd(4), idempotencyKey: 'evt-root' });
    await remove(world.root.id, direct.account.id);
    expect(ledgerOf(world, `delete:${direct.account.id}`)).toMatchObject([
      { kind: 'mint', accountId: direct.account.id, amountNano: usd(2) },
    ]);
  });

  it('refuses an account with live subaccounts, and anyone but its parent or an owner above, moving nothing', async () => {
    const child = await createChild(world, parent.account.id, usd(5));
    const grandchild = await createChild(world, child.account.id, usd(2));
    const before = world.store.tables();
    await expect(remove(parent.account.id, child.account.id)).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(grandchild.account.name),
    });
    await expect(remove(child.account.id, child.account.id)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(remove(parent.account.id, grandchild.account.id)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(world.store.tables()).toEqual(before);
    expect(await lotsOf(world, child.account.id)).toEqual([usd(3)]);
  });

  it('refunds once per Idempotency-Key: a replay answers the first refund and moves nothing', async () => {
    const child = await createChild(world, parent.account.id, usd(5));
    const first = await remove(parent.account.id, child.account.id, 'delete-once');
    const after = world.store.tables();
    expect(await remove(parent.account.id, child.account.id, 'delete-once')).toEqual({
      ...first,
      replayed: true,
    });
    expect(world.store.tables()).toEqual(after);
    await expect(remove(parent.account.id, child.account.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
