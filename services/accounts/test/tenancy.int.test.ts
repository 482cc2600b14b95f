import {
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
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moneyState } from './accounts-helpers.js';

interface Tree {
  owner: Created;
  a: Created;
  a1: Created;
  keyId: number;
}

interface LogBody {
  logs: Array<{
    action: string;
    operator_id: number;
    target_id: number;
    target_type: string;
    status: string;
  }>;
  total: number;
}

/**
 * Multi-tenant mode (GW_TENANCY=multi) through the edge, on PostgreSQL: two owners, each with a
 * three-level tree (owner → A → A1) and a provider key. Nothing one tree does can see, count or
 * change the other: a target in the other tenant is 404 on every management route, whatever the
 * identifier form, and the tables stay as they were.
 */
describe('tenants: GW_TENANCY=multi', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let one: Tree;
  let two: Tree;

  async function ownerTree(label: string): Promise<Tree> {
    const owner = await createUser(gw, { name: uniqueName(label), credit: 50, extra: { IsOwner: true } });
    const a = await createUser(gw, { parentKey: owner.key, credit: 20 });
    const a1 = await createUser(gw, { parentKey: a.key, credit: 5 });
    const key = await gw.request('/x-keys', {
      method: 'POST',
      key: owner.key,
      json: { SecretKey: randomSecret(), Level: 1, Provider: `https://${label}.example.test` },
    });
    expect(key.status, await key.clone().text()).toBe(200);
    return { owner, a, a1, keyId: ((await key.json()) as { Key: { ID: number } }).Key.ID };
  }

  /** Everything a tenant could change: accounts, money, keys, configuration, news. */
  async function state(): Promise<string> {
    const keys = await Promise.all(
      [one, two].map(async (tree) => (await gw.request('/x-keys', { key: tree.owner.key })).text()),
    );
    const configs = await Promise.all(
      [one, two].map(async (tree) => (await gw.request('/x-config', { key: tree.owner.key })).text()),
    );
    const news = await Promise.all(
      [one, two].map(async (tree) => (await gw.request('/dashboard/news', { key: tree.a1.key })).text()),
    );
    return JSON.stringify([await moneyState(database), keys, configs, news]);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({
      databaseUrl: database.url,
      env: {
        GW_TENANCY: 'multi',
        GW_PUBLIC_URL: 'https://gateway.example.test',
        // Key last-use times are written in batches; none lands while the matrix compares tables.
        GW_KEY_USE_FLUSH_MS: String(60 * 60_000),
      },
    });
    one = await ownerTree('tenantone');
    two = await ownerTree('tenanttwo');
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('lets root create owners only, and only root create them', async () => {
    await expectError(await createRaw(gw.rootKey, {}), 400, 'invalid_request', 'IsOwner');
    await expectError(await createRaw(one.owner.key, { IsOwner: true }), 403, 'forbidden');
    const status = (await (await gw.request('/dashboard/status', { key: one.owner.key })).json()) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({ admin: true, is_owner: true });
    const view = (await (await gw.request(`/x-users/${one.owner.id}`)).json()) as {
      users: Array<Record<string, unknown>>;
    };
    expect(view.users[0]).toMatchObject({ IsOwner: true });
    expect(
      ((await (await gw.request('/dashboard/status', { key: one.a.key })).json()) as Record<string, unknown>)
        .is_owner,
    ).toBe(false);
  });

  it('answers 404 on every management route for a target in the other tenant, both ways, and changes nothing', async () => {
    const before = await state();
    const seen: string[] = [];
    for (const [actors, targets] of [
      [one, two],
      [two, one],
    ] as const) {
      for (const actor of [actors.owner, actors.a, actors.a1]) {
        for (const target of [targets.owner, targets.a, targets.a1]) {
          for (const identifier of [
            String(target.id),
            target.name,
            `${target.name}@example.com`,
            target.dna,
          ]) {
            const id = encodeURIComponent(identifier);
            const calls: Array<[string, RequestInit & { json?: unknown }]> = [
              [`/x-users/${id}`, {}],
              [`/x-dna/${id}`, {}],
              [`/x-users/${id}`, { method: 'PUT', json: { Alias: 'moved', CreditGranted: 1 } }],
              [`/x-users/${id}`, { method: 'POST', json: { Suspended: true } }],
              [`/x-users/${id}`, { method: 'DELETE' }],
              [`/x-news/${id}`, { method: 'POST', json: { title: 'hello', content: 'from elsewhere' } }],
              [`/x-news/${id}`, { method: 'DELETE' }],
            ];
            if (actor === actors.owner) {
              calls.push([`/x-info?user=${id}`, {}], [`/x-route?model=m&user=${id}`, {}]);
            }
            for (const [path, init] of calls) {
              const response = await gw.request(path, { ...init, key: actor.key });
              const body = await response.text();
              seen.push(`${response.status} ${init.method ?? 'GET'} ${path}`);
              expect(response.status, `${init.method ?? 'GET'} ${path} by ${actor.name}`).toBe(404);
              expect(body).not.toContain(target.name);
            }
          }
        }
      }
      for (const [path, method] of [
        [`/x-keys/${targets.keyId}`, 'GET'],
        [`/x-keys/${targets.keyId}`, 'PUT'],
        [`/x-keys/${targets.keyId}`, 'DELETE'],
      ] as const) {
        const response = await gw.request(path, {
          method,
          key: actors.owner.key,
          ...(method === 'PUT' ? { json: { Status: false } } : {}),
        });
        expect(response.status, `${method} ${path}`).toBe(404);
      }
    }
    expect(seen.length).toBeGreaterThan(300);
    expect(await state()).toBe(before);
  });

  it('never lists, counts or finds the other tenant in lists, filters and overviews', async () => {
    for (const [mine, theirs] of [
      [one, two],
      [two, one],
    ] as const) {
      const all = (await (await gw.request('/x-dna', { key: mine.owner.key })).json()) as {
        users: Array<{ ID: number }>;
        total: number;
      };
      expect(all.users.map((user) => user.ID).sort((x, y) => x - y)).toEqual([mine.a.id, mine.a1.id]);
      expect(all.total).toBe(2);
      for (const query of [
        `?id=${theirs.a1.id}`,
        `?dna=${theirs.a.dna}`,
        `?email=${theirs.a1.name}@example.com`,
      ]) {
        const filtered = (await (await gw.request(`/x-dna${query}`, { key: mine.owner.key })).json()) as {
          total: number;
        };
        expect(filtered.total, query).toBe(0);
      }
      const keys = (await (await gw.request('/x-keys', { key: mine.owner.key })).json()) as {
        keys: Array<{ ID: number }>;
      };
      expect(keys.keys.map((key) => key.ID)).toEqual([mine.keyId]);
      const config = (await (await gw.request('/x-config', { key: mine.owner.key })).json()) as {
        oid: number;
      };
      expect(config.oid).toBe(mine.owner.id);
    }
  });

  it("keeps names per tenant, DNA news inside its tree, and each tenant's log to itself", async () => {
    const shared = uniqueName('shared');
    await createUser(gw, { parentKey: one.owner.key, name: shared, credit: 2 });
    await createUser(gw, { parentKey: two.owner.key, name: shared, credit: 2 });
    await expectError(await createRaw(one.owner.key, {}, shared), 409, 'conflict', 'Name is already taken');
    const posted = await gw.request(`/x-news/${encodeURIComponent(one.owner.dna)}`, {
      method: 'POST',
      key: one.owner.key,
      json: { title: 'tenant one only', content: 'hello tree' },
    });
    expect(posted.status).toBe(200);
    const newsOf = async (key: string) =>
      (
        (await (await gw.request('/dashboard/news', { key })).json()) as {
          dna_news: Array<{ title: string }>;
        }
      ).dna_news;
    expect((await newsOf(one.a1.key)).map((item) => item.title)).toEqual(['tenant one only']);
    expect(await newsOf(two.a1.key)).toEqual([]);

    await gw.request(`/x-users/${one.a1.id}`, { method: 'PUT', key: two.owner.key, json: { Alias: 'x' } });
    await gw.request(`/x-users/${one.a1.id}`, { method: 'PUT', json: { Alias: 'set by root' } });
    const logsOf = async (key: string) =>
      (await (await gw.request('/dashboard/logs?size=100', { key })).json()) as LogBody;
    await waitFor(
      async () =>
        (await logsOf(one.owner.key)).logs.some(
          (entry) => entry.action === 'update_user' && entry.operator_id === 1,
        ),
      "root's update in the owner's log",
    );
    const ownerOne = await logsOf(one.owner.key);
    expect(ownerOne.logs.some((entry) => entry.operator_id === two.owner.id)).toBe(false);
    const ownerTwo = await logsOf(two.owner.key);
    expect(ownerTwo.logs).toContainEqual(
      expect.objectContaining({ action: 'update_user', status: 'failed', target_id: 0 }),
    );
    // The matrix's refused key update by owner two is in its own log, naming no key.
    expect(ownerTwo.logs).toContainEqual(
      expect.objectContaining({ action: 'update_key', status: 'failed', target_id: 0 }),
    );
    expect(ownerTwo.logs.some((entry) => entry.target_id === one.a1.id)).toBe(false);
    expect(ownerOne.logs).toContainEqual(
      expect.objectContaining({ action: 'add_key', target_type: 'key', target_id: one.keyId }),
    );
  });

  it("stops a suspended owner's whole tenant, and no other", async () => {
    const off = await ownerTree('tenantoff');
    const change = (key: string) => createRaw(key, {});
    expect((await change(off.a1.key)).status).toBe(200);
    const suspended = await gw.request(`/x-users/${off.owner.id}`, {
      method: 'PUT',
      json: { Suspended: true },
    });
    expect(suspended.status).toBe(200);
    await waitFor(async () => (await change(off.a1.key)).status === 403, "the owner's state below it");
    await expectError(await change(off.a.key), 403, 'forbidden', 'an account above this one is suspended');
    expect((await change(two.a.key)).status).toBe(200);
  });

  function createRaw(key: string, extra: Record<string, unknown>, name = uniqueName('raw')) {
    return gw.request('/x-users', {
      method: 'POST',
      key,
      json: { Name: name, Email: `${name}@example.com`, CreditGranted: 2, ...extra },
    });
  }
});
