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
import { createAccount } from './create-account.js';
import { DAY_MS } from './lots.js';
import { updateAccount } from './update-account.js';

describe('createAccount over the in-memory stores', () => {
  let world: MoneyWorld;

  beforeEach(async () => {
    world = await moneyWorld();
  });

  afterEach(async () => {
    await expectConserved(world);
  });

  it("mints a child of root's credit into one lot valid for Days, recorded as a mint", async () => {
    const child = await createChild(world, world.root.id, usd(5), { days: 30 });
    expect(child.balanceNano).toBe(usd(5));
    expect(child.secretKey).toMatch(/^sk-gw-/);
    expect(child.lots.map((lot) => lot.expiresAt.getTime())).toEqual([
      world.clock.now().getTime() + 30 * DAY_MS,
    ]);
    expect(ledgerOf(world, `create:${child.account.id}`)).toMatchObject([
      { kind: 'mint', accountId: child.account.id, counterpartyId: world.root.id, amountNano: usd(5) },
    ]);
    expect(world.audits).toMatchObject([{ action: 'add_user', targetId: child.account.id }]);
  });

  it("grants from the parent's own lots, earliest expiry first, and never overdraws it", async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    await updateAccount(world.deps, {
      callerId: world.root.id,
      identifier: String(parent.account.id),
      fields: {},
      creditGrantedNano: usd(3),
      days: 10,
      idempotencyKey: '',
      requestHash: '',
    });
    expect(await lotsOf(world, parent.account.id)).toEqual([usd(3), usd(10)]);

    const child = await createChild(world, parent.account.id, usd(4));
    expect(await lotsOf(world, parent.account.id)).toEqual([usd(9)]);
    expect(balanceNano(world, parent.account.id)).toBe(usd(9));
    expect(child.balanceNano).toBe(usd(4));
    expect(ledgerOf(world, `create:${child.account.id}`)).toMatchObject([
      { kind: 'grant', accountId: parent.account.id, amountNano: -usd(4) },
      { kind: 'grant', accountId: child.account.id, amountNano: usd(4) },
    ]);

    const before = world.store.tables();
    await expect(createChild(world, parent.account.id, usd('9.000000001'))).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    expect(world.store.tables()).toEqual(before);
  });

  it('creates once per Idempotency-Key: a replay answers the same account, another request is a conflict', async () => {
    const create = (credit: string) =>
      createAccount(world.deps, {
        callerId: world.root.id,
        fields: { name: 'keyed01', email: 'keyed01@example.com' },
        creditGrantedNano: usd(credit),
        days: undefined,
        idempotencyKey: 'create-keyed01',
        requestHash: requestHash(`POST /x-users ${credit}`),
      });
    const first = await create('3');
    expect(first.replayed).toBe(false);
    const after = world.store.tables();
    const replay = await create('3');
    expect(replay).toMatchObject({ replayed: true, secretKey: '', balanceNano: usd(3) });
    expect(replay.account.id).toBe(first.account.id);
    expect(world.store.tables()).toEqual(after);
    await expect(create('4')).rejects.toMatchObject({ code: 'conflict' });
    expect(world.store.tables()).toEqual(after);
    expect(world.audits.filter((entry) => entry.action === 'add_user' && !entry.status)).toHaveLength(1);
    expect(world.audits.filter((entry) => entry.status === 'failed')).toMatchObject([
      { action: 'add_user', targetId: 0n, details: expect.stringContaining('Idempotency-Key') },
    ]);
  });

  it('refuses a taken name or e-mail, a grant under 2 USD and owner-only fields from a non-owner, moving nothing', async () => {
    const parent = await createChild(world, world.root.id, usd(10));
    const before = world.store.tables();
    // A taken name or e-mail is a conflict; a grant out of range is bad input.
    const attempts = [
      {
        fields: { name: parent.account.name.toUpperCase(), email: 'other@example.com' },
        credit: usd(2),
        code: 'conflict',
      },
      { fields: { name: 'freshname', email: parent.account.email }, credit: usd(2), code: 'conflict' },
      {
        fields: { name: 'freshname', email: 'fresh@example.com' },
        credit: usd('1.999999999'),
        code: 'invalid_request',
      },
    ];
    for (const attempt of attempts) {
      await expect(
        createAccount(world.deps, {
          callerId: world.root.id,
          fields: attempt.fields,
          creditGrantedNano: attempt.credit,
          days: undefined,
          idempotencyKey: '',
        }),
      ).rejects.toMatchObject({ code: attempt.code });
    }
    await expect(
      createChild(world, parent.account.id, usd(2), { fields: { level: 3 } }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(world.store.tables()).toEqual(before);
  });

  it("gives a child its creator's Level, Gear, Role, Tier and Factor", async () => {
    const parent = await createChild(world, world.root.id, usd(10), {
      fields: { level: 3, gear: 2, role: 4, tier: 5, factor: 1.5 },
    });
    const child = await createChild(world, parent.account.id, usd(2));
    expect(child.account).toMatchObject({ level: 3, gear: 2, role: 4, tier: 5, factor: 1.5 });
  });
});
