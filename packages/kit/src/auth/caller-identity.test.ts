import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { usd } from '../money.js';
import { callerIdentity, isOwnerAccount, ownerIdOf } from './caller-identity.js';

const FLOOR = usd('0.5');

describe('callerIdentity', () => {
  it('sends the owner that serves the account, its own lists and what its ancestors impose', () => {
    const account = accounts.Account.fromPartial({
      id: 12n,
      ownerId: 3n,
      allowModels: 'gpt-4o*',
      inherited: accounts.Inherited.fromPartial({
        allowModels: ['gpt-*'],
        resources: ['/v1/chat/completions'],
      }),
    });
    const identity = callerIdentity(account, FLOOR);
    expect(identity).toMatchObject({
      accountId: '12',
      ownerId: '3',
      allowModels: 'gpt-4o*',
      inherited: {
        allowModels: ['gpt-*'],
        allowLevels: [],
        resources: ['/v1/chat/completions'],
        modelLimits: [],
      },
    });
  });

  it("takes each rate limit from the account, or where it sets none from its ancestors'", () => {
    const account = accounts.Account.fromPartial({
      id: 12n,
      rpm: 30n,
      tpd: 0n,
      inherited: accounts.Inherited.fromPartial({ rpm: 60n, tpd: 1_000n }),
    });
    expect(callerIdentity(account, FLOOR).limits).toEqual({
      rpm: 30,
      rph: 0,
      rpd: 0,
      tpm: 0,
      tph: 0,
      tpd: 1_000,
    });
  });

  it('gives what the account may spend, and nothing to reserve against for root', () => {
    const user = accounts.Account.fromPartial({ id: 12n, balanceNano: usd('7'), rates: 2, factor: 0 });
    expect(callerIdentity(user, FLOOR).spend).toEqual({
      balanceNano: String(usd('7')),
      floorNano: String(FLOOR),
      rates: 2,
      factor: 1,
    });
    const root = accounts.Account.fromPartial({ id: 1n, isRoot: true, balanceNano: usd('7') });
    expect(callerIdentity(root, FLOOR).spend).toBeUndefined();
    expect(callerIdentity(root, FLOOR).ownerId).toBe('1');
  });
});

describe('ownerIdOf and isOwnerAccount', () => {
  it('names an account served by its owner, and root and owners by themselves', () => {
    expect(ownerIdOf(accounts.Account.fromPartial({ id: 12n, ownerId: 3n }))).toBe(3n);
    expect(ownerIdOf(accounts.Account.fromPartial({ id: 3n, isOwner: true }))).toBe(3n);
    expect(isOwnerAccount(accounts.Account.fromPartial({ id: 1n, isRoot: true }))).toBe(true);
    expect(isOwnerAccount(accounts.Account.fromPartial({ id: 12n, ownerId: 3n }))).toBe(false);
  });
});
