import { hashApiKey, usd } from '@gw/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { createChild, moneyWorld, type MoneyWorld } from '../../test/memory-store/money-world.js';
import type { AccountFields } from './account-fields.js';
import { authenticateKey } from './authenticate-key.js';
import { updateAccount } from './update-account.js';

describe('an ancestor disabled or suspended turns off its whole subtree', () => {
  let world: MoneyWorld;
  let parent: Awaited<ReturnType<typeof createChild>>;
  let child: Awaited<ReturnType<typeof createChild>>;
  let grandchild: Awaited<ReturnType<typeof createChild>>;
  const update = (callerId: bigint, targetId: bigint, fields: AccountFields) =>
    updateAccount(world.deps, {
      callerId,
      identifier: String(targetId),
      fields,
      creditGrantedNano: undefined,
      days: undefined,
      idempotencyKey: '',
      requestHash: '',
    });

  beforeEach(async () => {
    world = await moneyWorld();
    parent = await createChild(world, world.root.id, usd(50));
    child = await createChild(world, parent.account.id, usd(10));
    grandchild = await createChild(world, child.account.id, usd(2));
  });

  it.each([
    [{ suspended: true }, 'suspended', 'ancestor_suspended'],
    [{ status: false }, 'disabled', 'ancestor_disabled'],
  ] as const)(
    'after %o the descendants authenticate as off, may not write, and each is announced',
    async (fields, flag, reason) => {
      await update(world.root.id, parent.account.id, fields);
      const seen = await authenticateKey(world.deps, hashApiKey(grandchild.secretKey));
      // Its own row says nothing: what turns it off is read along its path.
      expect(seen.account).toMatchObject({ status: true, suspended: false });
      expect(seen.inherited).toMatchObject({ [flag]: true });
      await expect(createChild(world, child.account.id, usd(1))).rejects.toMatchObject({
        code: 'forbidden',
        message: expect.stringContaining(`an account above this one is ${flag}`),
      });
      await expect(update(child.account.id, grandchild.account.id, { alias: 'x' })).rejects.toMatchObject({
        code: 'forbidden',
      });
      expect(
        world.changed.filter((event) => event.reason === reason).map((event) => event.accountId),
      ).toEqual(expect.arrayContaining([child.account.id, grandchild.account.id]));
      expect(world.changed.filter((event) => event.reason === reason)).toHaveLength(2);
    },
  );

  it('lets only the ancestor that disabled an account, or one above it, enable it again', async () => {
    await update(world.root.id, grandchild.account.id, { status: false });
    await expect(update(child.account.id, grandchild.account.id, { status: true })).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('Status'),
    });
    await expect(update(parent.account.id, grandchild.account.id, { status: true })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(update(world.root.id, grandchild.account.id, { status: true })).resolves.toMatchObject({
      account: { status: true, disabledBy: null },
    });
    // Disabled by the parent itself: the parent may enable it again.
    await update(child.account.id, grandchild.account.id, { status: false });
    await expect(update(child.account.id, grandchild.account.id, { status: true })).resolves.toMatchObject({
      account: { status: true },
    });
  });
});
