import { usd } from '@gw/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { createChild, moneyWorld, type MoneyWorld } from '../../test/memory-store/money-world.js';
import type { AccountFields } from './account-fields.js';
import { getAccount } from './get-account.js';
import { updateAccount } from './update-account.js';

describe('a child never gets more than its creator', () => {
  let world: MoneyWorld;
  let parentId: bigint;
  const parentFields: AccountFields = {
    allowModels: 'gpt-4o*',
    allowLevels: '1,2',
    resources: '/v1/chat/completions /v1/embeddings',
    allowIps: '10.0.0.0/8',
    rpm: 100n,
    modelLimits: { 'gpt-4o*': { tpm: 5000 } },
  };
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
    parentId = (await createChild(world, world.root.id, usd(50), { fields: parentFields })).account.id;
  });

  it('refuses, naming the field and entries, a child AllowModels outside the parent (the acc-model case)', async () => {
    const before = world.store.tables();
    await expect(
      createChild(world, parentId, usd(2), { fields: { allowModels: 'acc-model' } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^AllowModels .*"acc-model"/),
    });
    expect(world.store.tables().accounts).toEqual(before.accounts);
    const narrower = await createChild(world, parentId, usd(2), {
      fields: { allowModels: 'gpt-4o-mini gpt-4o*' },
    });
    expect(narrower.account.allowModels).toBe('gpt-4o-mini gpt-4o*');
    await expect(update(parentId, narrower.account.id, { allowModels: 'acc-model' })).rejects.toMatchObject({
      message: expect.stringContaining('"acc-model"'),
    });
    await expect(update(parentId, narrower.account.id, { allowModels: '*' })).resolves.toMatchObject({
      account: { allowModels: 'gpt-4o*' },
    });
  });

  it('refuses Levels, Resources, addresses and limits beyond the parent, each by name', async () => {
    const cases: Array<[AccountFields, RegExp]> = [
      [{ allowLevels: '1 3' }, /^AllowLevels .*"3"/],
      [{ resources: '/v1/images/generations' }, /^Resources .*"\/v1\/images\/generations"/],
      [{ allowIps: '10.1.0.0/16 192.168.0.1' }, /^AllowIPs .*"192\.168\.0\.1"/],
      [{ allowIps: '10.0.0.0/7' }, /^AllowIPs .*"10\.0\.0\.0\/7"/],
      [{ rpm: 101n }, /^RPM .*"101"/],
      [{ modelLimits: { 'gpt-4o-mini': { tpm: 6000 } } }, /^ModelLimits .*gpt-4o-mini\.tpm/],
      [{ modelMapper: 'gpt-4o=acc-model' }, /^ModelMapper .*"acc-model"/],
    ];
    for (const [fields, message] of cases) {
      await expect(
        createChild(world, parentId, usd(2), { fields }),
        Object.keys(fields).join(),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(message),
      });
    }
    const within = await createChild(world, parentId, usd(2), {
      fields: {
        allowLevels: '2',
        resources: '/v1/embeddings',
        allowIps: '10.9.0.0/16',
        rpm: 0n,
        tpm: 10n,
        modelLimits: { 'gpt-4o-mini': { tpm: 4000 } },
        modelMapper: 'gpt-4=gpt-4o-mini',
      },
    });
    expect(within.account.rpm).toBe(0n);
  });

  it("refuses a child ModelLimits pattern overlapping a parent's with a higher limit (pattern overlap, not equality)", async () => {
    const limited = await createChild(world, world.root.id, usd(10), {
      fields: { modelLimits: { 'gpt-4o-mini': { rpm: 5 } } },
    });
    for (const pattern of ['gpt-4o-mini*', 'gpt-4o*', '*mini']) {
      await expect(
        createChild(world, limited.account.id, usd(2), {
          fields: { modelLimits: { [pattern]: { rpm: 6 } } },
        }),
        pattern,
      ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^ModelLimits /) });
    }
    const within = await createChild(world, limited.account.id, usd(2), {
      fields: { modelLimits: { 'gpt-4o-mini*': { rpm: 5 }, 'o3*': { rpm: 60 } } },
    });
    expect(within.account.modelLimits).toEqual({ 'gpt-4o-mini*': { rpm: 5 }, 'o3*': { rpm: 60 } });
  });

  it('lets the owner set anything, and narrows every descendant when a parent narrows, without rewriting them', async () => {
    const child = await createChild(world, parentId, usd(5), { fields: { allowModels: 'gpt-4o-mini' } });
    const grandchild = await createChild(world, child.account.id, usd(2));
    await update(world.root.id, parentId, { allowModels: '* o3', allowLevels: '2', rpm: 10n });
    const seen = await getAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(grandchild.account.id),
      includeSelf: false,
    });
    expect(seen.account.allowModels).toBe('gpt-4o-mini');
    expect(seen.inherited).toMatchObject({
      allowModels: ['gpt-4o-mini', 'o3'],
      allowLevels: ['1,2', '2'],
      limits: { rpm: 10n },
    });
  });

  it('lets only the ancestor that suspended an account, or one above it, lift it', async () => {
    const child = await createChild(world, parentId, usd(5));
    const grandchild = await createChild(world, child.account.id, usd(2));
    await update(parentId, grandchild.account.id, { suspended: true });
    await expect(update(child.account.id, grandchild.account.id, { suspended: false })).rejects.toMatchObject(
      {
        code: 'forbidden',
        message: expect.stringContaining('Suspended'),
      },
    );
    // Suspending again from below keeps the higher suspender.
    await update(child.account.id, grandchild.account.id, { suspended: true });
    await expect(update(child.account.id, grandchild.account.id, { suspended: false })).rejects.toMatchObject(
      {
        code: 'forbidden',
      },
    );
    await expect(update(world.root.id, grandchild.account.id, { suspended: false })).resolves.toMatchObject({
      account: { suspended: false, suspendedBy: null },
    });
    await update(child.account.id, grandchild.account.id, { suspended: true });
    await expect(
      update(child.account.id, grandchild.account.id, { suspended: false }),
    ).resolves.toMatchObject({
      account: { suspended: false },
    });
  });
});
