import {
  AddressList,
  AuthCache,
  createLogger,
  FailedAuthLimiter,
  hashApiKey,
  KeyUseRecorder,
  type AuthDeps,
} from '@gw/kit';
import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { resolveCaller } from './authenticate.js';

const KEY = 'sk-gw-a-key-for-the-role-tests';

function deps(account: Partial<accounts.Account>): AuthDeps {
  const stored = accounts.Account.fromPartial({ id: 7n, status: true, ...account });
  return {
    cache: new AuthCache(async (hash) => (hash === hashApiKey(KEY) ? stored : undefined), 30_000),
    keyUses: new KeyUseRecorder(async () => undefined, createLogger('test', 'silent'), 60_000),
    failedAuth: new FailedAuthLimiter(100),
    trustedProxies: AddressList.parse('') as AddressList,
    internalToken: 'an-internal-token-of-the-tests',
  };
}

const call = (account: Partial<accounts.Account>, access: 'user' | 'owner' | 'root') =>
  resolveCaller(deps(account), { authorization: `Bearer ${KEY}`, client: '203.0.113.9' }, access, 'read');

describe('resolveCaller', () => {
  it("holds a route's role on top of the key check: owner routes for owners and root, root routes for root", async () => {
    const user = { ownerId: 3n };
    const owner = { isOwner: true };
    const root = { isRoot: true };
    expect((await call(user, 'user')).id).toBe(7n);
    await expect(call(user, 'owner')).rejects.toMatchObject({ code: 'forbidden', message: /owner/ });
    expect((await call(owner, 'owner')).id).toBe(7n);
    await expect(call(owner, 'root')).rejects.toMatchObject({ code: 'forbidden', message: /root/ });
    expect((await call(root, 'owner')).id).toBe(7n);
    expect((await call(root, 'root')).id).toBe(7n);
  });
});
