import {
  createTestDatabase,
  createUser,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface UserView {
  KeyLastUsedAt: string | null;
}

describe('key last-use tracking', () => {
  let gw: Gateway;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: { GW_KEY_USE_FLUSH_MS: '200' } });
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  const lastUsed = async (id: number) => {
    const response = await gw.request(`/x-users/${id}`);
    const body = (await response.json()) as { users?: UserView[] } & Partial<UserView>;
    return (body.users?.[0] ?? body).KeyLastUsedAt ?? null;
  };

  it('shows no last use for a key that was never presented', async () => {
    const user = await createUser(gw);
    // Another key's use recorded after this account exists: a batch went out without it.
    const other = await createUser(gw);
    expect((await gw.request('/dashboard/status', { key: other.key })).status).toBe(200);
    await waitFor(async () => (await lastUsed(other.id)) !== null, 'the other key recorded', 5_000, 100);
    expect(await lastUsed(user.id)).toBeNull();
  });

  it('records when a key was last used, in batches from the edge', async () => {
    const user = await createUser(gw);
    const before = Date.now();
    for (let i = 0; i < 5; i++) {
      expect((await gw.request('/dashboard/status', { key: user.key })).status).toBe(200);
    }
    await waitFor(async () => (await lastUsed(user.id)) !== null, 'last use recorded', 5_000, 100);
    const recorded = Date.parse(String(await lastUsed(user.id)));
    expect(recorded).toBeGreaterThanOrEqual(before - 1_000);
    expect(recorded).toBeLessThanOrEqual(Date.now());
    const [row] = await database.query<{ key_last_used_at: Date }>(
      'SELECT key_last_used_at FROM accounts.accounts WHERE id = $1',
      [user.id],
    );
    expect(row?.key_last_used_at.getTime()).toBe(recorded);
  });
});
