import {
  AUTH_CACHE_UNTIL_EVENT,
  createTestDatabase,
  createUser,
  expectError,
  randomSecret,
  startGateway,
  uniqueName,
  waitFor,
  type Created,
  type Gateway,
  type TestDatabase,
  MockUpstream,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Tenant {
  owner: Created;
  a: Created;
  a1: Created;
  secret: string;
}

/**
 * Multi-tenant pools end to end (the proxy on the public port → mock upstream): each owner's key serves its own
 * tree only; a tenant's Provider may use loopback or private addresses only inside
 * GW_TENANT_PRIVATE_CIDRS; and what a parent takes away from its lists is taken from every
 * descendant at the next call, without their rows changing.
 */
describe('tenant pools and effective lists', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let one: Tenant;
  let two: Tenant;
  let database: TestDatabase;

  const chat = (key: string, model: string) =>
    gw.request('/v1/chat/completions', { method: 'POST', key, json: { model, messages: [] } });

  async function tenant(label: string): Promise<Tenant> {
    const owner = await createUser(gw, { name: uniqueName(label), credit: 50, extra: { IsOwner: true } });
    const secret = `${label}-${randomSecret(24)}`;
    const added = await gw.request('/x-keys', {
      method: 'POST',
      key: owner.key,
      json: { SecretKey: secret, Level: 1, Provider: mock.url },
    });
    expect(added.status, await added.clone().text()).toBe(200);
    const a = await createUser(gw, { parentKey: owner.key, credit: 20, extra: { AllowModels: 'gpt-4o*' } });
    const a1 = await createUser(gw, { parentKey: a.key, credit: 5 });
    // The proxy learns the pool from gw.keys.changed: wait until the owner's route names the key.
    await waitFor(async () => {
      const route = await gw.request('/x-route?model=gpt-4o-mini', { key: owner.key });
      return route.status === 200 && ((await route.json()) as { Keys: unknown[] }).Keys.length === 1;
    }, `${label}'s pool in the proxy`);
    return { owner, a, a1, secret };
  }

  beforeAll(async () => {
    mock = await MockUpstream.start();
    database = await createTestDatabase();
    gw = await startGateway({
      databaseUrl: database.url,
      env: {
        ...AUTH_CACHE_UNTIL_EVENT,
        GW_TENANCY: 'multi',
        GW_TENANT_PRIVATE_CIDRS: '127.0.0.1/32',
        GW_PUBLIC_URL: 'https://gateway.example.test',
      },
    });
    one = await tenant('poolone');
    two = await tenant('pooltwo');
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it("serves each tree with its owner's key only", async () => {
    for (const tree of [one, two, one, two]) {
      for (const account of [tree.owner, tree.a, tree.a1]) {
        expect((await chat(account.key, 'gpt-4o-mini')).status).toBe(200);
      }
    }
    expect(mock.for(one.secret)).toHaveLength(6);
    expect(mock.for(two.secret)).toHaveLength(6);
    expect(mock.requests.filter((request) => ![one.secret, two.secret].includes(request.key))).toEqual([]);
  });

  it("refuses a tenant's loopback or private Provider outside GW_TENANT_PRIVATE_CIDRS; root's pool keeps its rule", async () => {
    for (const provider of [
      'http://127.0.0.2:11434',
      'http://10.1.2.3',
      'http://[::1]:8000',
      'http://192.168.1.1',
    ]) {
      const response = await gw.request('/x-keys', {
        method: 'POST',
        key: one.owner.key,
        json: { SecretKey: randomSecret(), Level: 2, Provider: provider },
      });
      await expectError(response, 400, 'invalid_request', 'Provider');
    }
    const metadata = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: randomSecret(), Level: 2, Provider: 'http://169.254.169.254' },
    });
    await expectError(metadata, 400, 'invalid_request', 'metadata');
    const rootPrivate = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: randomSecret(), Level: 2, Provider: 'http://10.1.2.3' },
    });
    expect(rootPrivate.status).toBe(200);
    const id = ((await rootPrivate.json()) as { Key: { ID: number } }).Key.ID;
    expect((await gw.request(`/x-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('refuses a child more than its creator may use, and narrows descendants when a parent narrows', async () => {
    // The defect: an account allowed gpt-4o* made a child allowed acc-model, and it called acc-model.
    const refused = await gw.request('/x-users', {
      method: 'POST',
      key: one.a.key,
      json: {
        Name: uniqueName('wider'),
        Email: `${uniqueName('wider')}@example.com`,
        CreditGranted: 2,
        AllowModels: 'acc-model',
      },
    });
    await expectError(refused, 400, 'invalid_request', 'acc-model');
    expect((await chat(one.a1.key, 'acc-model')).status).toBe(403);

    const before = mock.for(one.secret).length;
    expect((await chat(one.a1.key, 'gpt-4o-mini')).status).toBe(200);
    const narrowed = await gw.request(`/x-users/${one.a.id}`, {
      method: 'PUT',
      key: one.owner.key,
      json: { AllowModels: '* o3' },
    });
    expect(narrowed.status).toBe(200);
    // The grandchild's cached key carries its ancestors' lists: the parent's event drops it too.
    await waitFor(async () => (await chat(one.a1.key, 'gpt-4o-mini')).status === 403, 'the narrowed list');
    const row = (await (await gw.request(`/x-users/${one.a1.id}`, { key: one.owner.key })).json()) as {
      users: Array<{ AllowModels: string }>;
    };
    expect(row.users[0]?.AllowModels).toBe('gpt-4o*');
    expect(mock.for(one.secret).length).toBe(before + 1);
  });
});
