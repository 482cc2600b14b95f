import {
  createTestDatabase,
  createUser,
  expectError,
  startGateway,
  type Created,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { list, moneyState } from './accounts-helpers.js';

describe('GET /x-users and /x-dna', () => {
  let gw: Gateway;
  let database: TestDatabase;
  // root(1) → a(2) → a1 → a11; a → a2; root → 20 more children, so ids 20-23 exist beside 2.
  let a: Created;
  let a1: Created;
  let a2: Created;
  let a11: Created;
  const rootChildren: Created[] = [];
  let twentyThree: Created;

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    a = await createUser(gw, { name: 'alpha_account', email: 'Alpha@Example.com', credit: 20 });
    rootChildren.push(a);
    a1 = await createUser(gw, { parentKey: a.key, name: 'alpha%one', credit: 5 });
    a2 = await createUser(gw, { parentKey: a.key, name: 'alphatwo', credit: 3 });
    a11 = await createUser(gw, { parentKey: a1.key, name: 'alphaoneone', credit: 2 });
    while (rootChildren.length < 20) {
      rootChildren.push(
        await createUser(gw, { name: `sibling${String(rootChildren.length).padStart(2, '0')}x`, credit: 2 }),
      );
    }
    const found = rootChildren.find((child) => child.id === 23);
    if (!found) {
      throw new Error(`expected an account with id 23, got ${rootChildren.map((c) => c.id).join(',')}`);
    }
    twentyThree = found;
    // Give two siblings level 3 (owner-only field: root may set it).
    for (const child of rootChildren.slice(1, 3)) {
      expect((await gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { Level: 3 } })).status).toBe(
        200,
      );
    }
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('lists only direct children with the list body and the paging headers', async () => {
    const { response, body } = await list(gw, '/x-users');
    expect(response.status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.total).toBe(20);
    expect(body.users.map((user) => user.ID).sort((x, y) => x - y)).toEqual(
      rootChildren.map((c) => c.id).sort((x, y) => x - y),
    );
    expect(response.headers.get('x-total-count')).toBe('20');
    expect(response.headers.get('x-page')).toBe('1');
    expect(response.headers.get('x-per-page')).toBe('100');
    expect(response.headers.get('x-total-pages')).toBe('1');
    for (const child of rootChildren) {
      expect(JSON.stringify(body)).not.toContain(child.key);
    }
  });

  it('pages and orders', async () => {
    const { response, body } = await list(gw, '/x-users?size=6&page=2&order=id');
    expect(response.status).toBe(200);
    const ids = rootChildren.map((c) => c.id).sort((x, y) => x - y);
    expect(body.users.map((user) => user.ID)).toEqual(ids.slice(6, 12));
    expect([body.page, body.size, body.total]).toEqual([2, 6, 20]);
    expect(response.headers.get('x-total-pages')).toBe('4');
    const last = await list(gw, '/x-users?size=6&page=4');
    expect(last.body.users).toHaveLength(2);
    const beyond = await list(gw, '/x-users?size=6&page=9');
    expect(beyond.body.users).toHaveLength(0);
    expect(beyond.body.total).toBe(20);
    const reversed = await list(gw, '/x-users?order=-id&size=3');
    expect(reversed.body.users.map((user) => user.ID)).toEqual([...ids].reverse().slice(0, 3));
    const byName = await list(gw, '/x-users?order=name.desc&size=1');
    expect(byName.body.users[0]?.Name).toBe('sibling19x');
    const capped = await list(gw, '/x-users?size=5000');
    expect(capped.response.headers.get('x-per-page')).toBe('1000');
  });

  it('refuses bad paging, filters and orders with 400', async () => {
    for (const query of [
      'size=0',
      'size=-1',
      'size=abc',
      'size=1.5',
      'page=0',
      'page=-3',
      'page=x',
      'level=10',
      'level=-1',
      'level=a',
      'id=abc',
      'id=-4',
      'dna=1.2',
      "dna=.1.2'--",
      'order=password',
      'order=id;DROP TABLE accounts',
      'size=1&size=2',
    ]) {
      await expectError(await gw.request(`/x-dna?${query}`), 400, 'invalid_request');
    }
  });

  it('filters by id, partial name (wildcards literal), e-mail, level and dna', async () => {
    expect((await list(gw, `/x-dna?id=${a1.id}`)).body.users.map((u) => u.ID)).toEqual([a1.id]);
    const partial = await list(gw, '/x-dna?name=ALPHA');
    expect(partial.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      [a.id, a1.id, a2.id, a11.id].sort((x, y) => x - y),
    );
    expect((await list(gw, '/x-dna?name=%25')).body.users.map((u) => u.ID)).toEqual([a1.id]);
    expect((await list(gw, '/x-dna?name=_')).body.users.map((u) => u.ID)).toEqual([a.id]);
    expect((await list(gw, '/x-dna?email=alpha@example.com')).body.users.map((u) => u.ID)).toEqual([a.id]);
    const level3 = await list(gw, '/x-dna?level=3');
    expect(level3.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      rootChildren
        .slice(1, 3)
        .map((c) => c.id)
        .sort((x, y) => x - y),
    );
    expect(level3.body.total).toBe(2);
    // dna without the trailing dot still means the subtree of .1.2., never .1.23.
    const subtree = await list(gw, `/x-dna?dna=.1.${a.id}`);
    expect(subtree.body.users.map((u) => u.DNA).every((dna) => dna.startsWith(`.1.${a.id}.`))).toBe(true);
    expect(subtree.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      [a.id, a1.id, a2.id, a11.id].sort((x, y) => x - y),
    );
    expect((await list(gw, "/x-dna?name=x'%20OR%201=1--")).body.total).toBe(0);
  });

  it('answers every identifier form: id, name and e-mail select one, a DNA path its subtree on /x-dna and itself on /x-users; L/G/R/T/F filter', async () => {
    for (const identifier of [String(a1.id), a1.name.toUpperCase(), `${a1.name}@example.com`]) {
      const { response, body } = await list(gw, `/x-dna/${encodeURIComponent(identifier)}`);
      expect(response.status, identifier).toBe(200);
      expect(body.users.map((u) => u.ID)).toEqual([a1.id]);
      expect(body.total).toBe(1);
      expect(response.headers.get('x-total-count')).toBe('1');
    }
    const subtree = await list(gw, `/x-dna/${encodeURIComponent(a1.dna)}`);
    expect(subtree.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual([a1.id, a11.id]);
    expect(subtree.body.total).toBe(2);
    const own = await list(gw, `/x-dna/${encodeURIComponent(a.dna)}`, a.key);
    expect(own.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      [a1.id, a2.id, a11.id].sort((x, y) => x - y),
    );
    const exact = await list(gw, `/x-users/${encodeURIComponent(a1.dna)}`);
    expect(exact.body.users.map((u) => u.ID)).toEqual([a1.id]);
    const l3 = await list(gw, '/x-users/L3');
    expect(l3.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      rootChildren
        .slice(1, 3)
        .map((c) => c.id)
        .sort((x, y) => x - y),
    );
    const l0 = await list(gw, '/x-dna/L0');
    expect(l0.body.total).toBe(rootChildren.length - 2 + 3);
    expect((await list(gw, '/x-dna/G0')).body.total).toBe(rootChildren.length + 3);
    expect((await list(gw, '/x-dna/R0')).body.total).toBe(rootChildren.length + 3);
    expect((await list(gw, '/x-dna/T0')).body.total).toBe(rootChildren.length + 3);
    expect((await list(gw, '/x-dna/F1')).body.total).toBe(rootChildren.length + 3);
    expect((await list(gw, '/x-dna/F1.5')).body.total).toBe(0);
    // Direct children only on /x-users with a filter.
    expect((await list(gw, '/x-users/G0')).body.total).toBe(rootChildren.length);
    for (const bad of ['L-1', 'F1e400', '.1.x.', '.1.2', '0']) {
      await expectError(await gw.request(`/x-dna/${encodeURIComponent(bad)}`), 400, 'invalid_request');
    }
    await expectError(await gw.request('/x-dna/999999'), 404, 'not_found');
    await expectError(await gw.request('/x-dna/nobody@example.com'), 404, 'not_found');
    await expectError(await gw.request('/x-dna/.1.999999.'), 404, 'not_found');
  });

  it('keeps every list and total inside the caller subtree: .1.2. never sees .1.23.', async () => {
    expect(a.id).toBe(2);
    const mine = await list(gw, '/x-dna', a.key);
    expect(mine.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      [a1.id, a2.id, a11.id].sort((x, y) => x - y),
    );
    expect(mine.body.total).toBe(3);
    expect(mine.response.headers.get('x-total-count')).toBe('3');
    const children = await list(gw, '/x-users', a.key);
    expect(children.body.users.map((u) => u.ID).sort((x, y) => x - y)).toEqual(
      [a1.id, a2.id].sort((x, y) => x - y),
    );
    for (const query of [
      '',
      '?dna=.1.2',
      '?dna=.1.23',
      '?dna=.1.',
      '?name=sibling',
      '?level=3',
      `?id=${twentyThree.id}`,
      '?size=1000',
    ]) {
      const { body } = await list(gw, `/x-dna${query}`, a.key);
      expect(
        body.users.every((u) => u.DNA.startsWith('.1.2.') && u.DNA !== '.1.2.'),
        query,
      ).toBe(true);
      expect(body.total).toBeLessThanOrEqual(3);
    }
    for (const filter of ['L0', 'L3', 'G0', 'F1']) {
      const { body } = await list(gw, `/x-dna/${filter}`, a.key);
      expect(
        body.users.every((u) => u.DNA.startsWith('.1.2.')),
        filter,
      ).toBe(true);
    }
  });

  it('answers 403 for an existing account outside the subtree, 404 for a missing one', async () => {
    const before = await moneyState(database);
    // Sibling, parent, self (not a managed account), a cousin and root, from a1's point of view.
    for (const target of [
      String(a2.id),
      String(a.id),
      String(a1.id),
      String(twentyThree.id),
      '1',
      a2.name,
      `${a2.name}@example.com`,
      a2.dna,
    ]) {
      await expectError(
        await gw.request(`/x-users/${encodeURIComponent(target)}`, { key: a1.key }),
        403,
        'forbidden',
      );
      await expectError(
        await gw.request(`/x-dna/${encodeURIComponent(target)}`, { key: a1.key }),
        403,
        'forbidden',
      );
    }
    await expectError(await gw.request('/x-users/987654', { key: a1.key }), 404, 'not_found');
    // The child sees its own child; the ancestor a sees the grandchild.
    expect((await list(gw, `/x-users/${a11.id}`, a1.key)).body.users.map((u) => u.ID)).toEqual([a11.id]);
    expect((await list(gw, `/x-dna/${a11.id}`, a.key)).body.users.map((u) => u.ID)).toEqual([a11.id]);
    // a11 manages nobody: an empty list, and its ancestors are forbidden.
    expect((await list(gw, '/x-dna', a11.key)).body).toMatchObject({ users: [], total: 0 });
    await expectError(await gw.request(`/x-users/${a.id}`, { key: a11.key }), 403, 'forbidden');
    expect(await moneyState(database)).toBe(before);
  });
});
