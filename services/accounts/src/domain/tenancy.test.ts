import { usd } from '@gw/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createChild,
  expectConserved,
  moneyWorld,
  type MoneyWorld,
} from '../../test/memory-store/money-world.js';
import { createAccount } from './create-account.js';
import { deleteAccount } from './delete-account.js';
import { getAccount } from './get-account.js';
import { listAccounts } from './list-accounts.js';
import { listOperations } from './list-operations.js';
import { recordOperation } from './record-operation.js';
import { loadSignupOwner } from './signup-owner.js';
import { updateAccount } from './update-account.js';

describe('tenants (GW_TENANCY=multi) over the in-memory stores', () => {
  let world: MoneyWorld;
  const owner = (name: string) =>
    createAccount(world.deps, {
      callerId: world.root.id,
      fields: { name, email: `${name}@example.com`, isOwner: true },
      creditGrantedNano: usd(100),
      days: undefined,
      idempotencyKey: '',
    });
  const read = (callerId: bigint, identifier: string) =>
    getAccount(world.deps, { callerId, identifier, includeSelf: false });

  beforeEach(async () => {
    world = await moneyWorld({ tenancy: 'multi' });
  });

  it('creates owners only from root, and only owners under root', async () => {
    const one = await owner('ownerone');
    expect(one.account).toMatchObject({ isOwner: true, ownerId: one.account.id });
    const child = await createChild(world, one.account.id, usd(5));
    expect(child.account.ownerId).toBe(one.account.id);
    await expect(createChild(world, world.root.id, usd(5))).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('IsOwner'),
    });
    await expect(
      createChild(world, one.account.id, usd(5), { fields: { isOwner: true } }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expectConserved(world);
  });

  it('answers 404 for a target in another tenant, whatever the identifier form, and 403 inside the tenant', async () => {
    const one = await owner('ownerone');
    const two = await owner('ownertwo');
    const a = await createChild(world, one.account.id, usd(10));
    const a1 = await createChild(world, a.account.id, usd(2));
    const b = await createChild(world, one.account.id, usd(10));
    const c = await createChild(world, two.account.id, usd(10));
    for (const identifier of [
      String(a1.account.id),
      a1.account.name,
      a1.account.email,
      a1.account.dna,
      String(one.account.id),
      String(world.root.id),
    ]) {
      await expect(read(c.account.id, identifier), identifier).rejects.toMatchObject({ code: 'not_found' });
      await expect(read(two.account.id, identifier), identifier).rejects.toMatchObject({ code: 'not_found' });
    }
    await expect(read(b.account.id, String(a1.account.id))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(read(a.account.id, a1.account.name)).resolves.toMatchObject({
      account: { id: a1.account.id },
    });
    const before = world.store.tables();
    await expect(
      updateAccount(world.deps, {
        callerId: two.account.id,
        identifier: a1.account.name,
        fields: { alias: 'taken over' },
        creditGrantedNano: usd(1),
        days: undefined,
        idempotencyKey: '',
        requestHash: '',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      deleteAccount(world.deps, {
        callerId: two.account.id,
        identifier: String(a1.account.id),
        idempotencyKey: '',
        requestHash: '',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(world.store.tables().accounts).toEqual(before.accounts);
    expect(world.store.tables().lots).toEqual(before.lots);
    const listed = await listAccounts(world.deps, {
      callerId: two.account.id,
      reach: 'descendants',
      filter: {},
      page: 1,
      size: 100,
      order: '',
    });
    expect(listed.views.map((view) => view.account.id)).toEqual([c.account.id]);
    expect(listed.total).toBe(1);
  });

  it('keeps names and e-mails unique within a tenant only, so a taken name says nothing about another', async () => {
    const one = await owner('ownerone');
    const two = await owner('ownertwo');
    await createChild(world, one.account.id, usd(2), {
      fields: { name: 'samename', email: 'same@example.com' },
    });
    const other = await createChild(world, two.account.id, usd(2), {
      fields: { name: 'SameName', email: 'same@example.com' },
    });
    expect(other.account.name).toBe('SameName');
    await expect(
      createChild(world, one.account.id, usd(2), { fields: { name: 'samename', email: 'x@example.com' } }),
    ).rejects.toMatchObject({ message: 'Name is already taken' });
    await expect(owner('ownerone')).rejects.toMatchObject({ message: 'Name is already taken' });
    await expect(read(two.account.id, 'samename')).resolves.toMatchObject({
      account: { id: other.account.id },
    });
  });

  it("shows root's actions inside a tenant in that owner's log, and an account only entries about itself", async () => {
    const one = await owner('ownerone');
    const a = await createChild(world, one.account.id, usd(10));
    await updateAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(a.account.id),
      fields: { alias: 'set by root' },
      creditGrantedNano: undefined,
      days: undefined,
      idempotencyKey: '',
      requestHash: '',
    });
    let event = 0;
    for (const audit of world.audits) {
      event += 1;
      await recordOperation(world.deps, {
        eventId: `evt-${event}`,
        ...audit,
        targetType: '',
        tenantId: audit.tenantId ?? 0n,
        status: audit.status ?? 'success',
        at: new Date().toISOString(),
      });
    }
    // A provider key whose id equals the account's id is not about the account.
    await recordOperation(world.deps, {
      eventId: 'evt-key',
      action: 'add_key',
      operatorId: one.account.id,
      targetType: 'key',
      targetId: a.account.id,
      tenantId: 0n,
      details: 'key added',
      ipAddress: '',
      status: 'success',
      at: new Date().toISOString(),
    });
    const ownerLog = await listOperations(world.deps, { callerId: one.account.id, page: 1, size: 100 });
    expect(ownerLog.entries).toContainEqual(
      expect.objectContaining({ action: 'update_user', operatorId: world.root.id, targetId: a.account.id }),
    );
    const accountLog = await listOperations(world.deps, { callerId: a.account.id, page: 1, size: 100 });
    expect(accountLog.entries.map((entry) => entry.action).sort()).toEqual(['add_user', 'update_user']);
    expect(accountLog.entries.every((entry) => entry.targetType === 'account')).toBe(true);
  });
});

describe('the signup owner in multi-tenant mode', () => {
  it('is unavailable as root, and found by name among the owners', async () => {
    const world = await moneyWorld({ tenancy: 'multi' });
    const signupTo = (owner: string) => loadSignupOwner({ ...world.deps, signupPolicy: { owner } });
    await expect(signupTo('root')).rejects.toMatchObject({
      code: 'unavailable',
      details: { reason: expect.stringContaining('not root') },
    });
    const desk = await createAccount(world.deps, {
      callerId: world.root.id,
      fields: { name: 'signupdesk', email: 'desk@example.com', isOwner: true },
      creditGrantedNano: usd(10),
      days: undefined,
      idempotencyKey: '',
    });
    await expect(signupTo('SignupDesk')).resolves.toMatchObject({ id: desk.account.id });
    await expect(signupTo(String(desk.account.id))).resolves.toMatchObject({ id: desk.account.id });
  });
});

describe('tenants (GW_TENANCY=single)', () => {
  it('refuses IsOwner: root is the one owner', async () => {
    const world = await moneyWorld();
    await expect(
      createChild(world, world.root.id, usd(2), { fields: { isOwner: true } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('GW_TENANCY=multi'),
    });
  });
});
