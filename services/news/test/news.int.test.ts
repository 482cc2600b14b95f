import { createTestDatabase, startGateway, type Gateway, type TestDatabase } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Item {
  id: number;
  title: string;
  content: string;
  created_at: string;
  expires_at: string;
}
interface NewsAnswer {
  success: boolean;
  system_news: Item[];
  user_news: Item[];
  dna_news: Item[];
}
interface Member {
  id: number;
  key: string;
  name: string;
  dna: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
let counter = 0;

describe('news (/x-news, /dashboard/news)', () => {
  let gw: Gateway;
  let database: TestDatabase;
  // root owns the tree: parent → child → grandchild, parent → sibling (of child),
  // uncle → cousin (of child).
  let root: Member;
  let parent: Member;
  let child: Member;
  let grandchild: Member;
  let sibling: Member;
  let uncle: Member;
  let cousin: Member;

  const create = async (parentKey: string, credit = 10): Promise<Member> => {
    counter += 1;
    const name = `news${Date.now().toString(36)}${counter}`;
    const response = await gw.request('/x-users', {
      method: 'POST',
      key: parentKey,
      json: { Name: name, Email: `${name}@example.com`, CreditGranted: credit },
    });
    const body = (await response.json()) as {
      User: { ID: number; SecretKey: string; Updates: { DNA: string } };
    };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return { id: body.User.ID, key: body.User.SecretKey, name, dna: body.User.Updates.DNA };
  };
  const post = (path: string, key: string, json: unknown) => gw.request(path, { method: 'POST', key, json });
  const newsOf = async (member: Member, path = '/dashboard/news'): Promise<NewsAnswer> => {
    const response = await gw.request(path, { key: member.key });
    expect(response.status).toBe(200);
    return (await response.json()) as NewsAnswer;
  };
  const titles = (items: Item[]) => items.map((item) => item.title).sort();
  const rowCount = async () =>
    Number((await database.query<{ n: string }>('SELECT count(*)::text AS n FROM news.news_items'))[0]?.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    const status = (await (await gw.request('/dashboard/status')).json()) as { id: number; dna: string };
    root = { id: status.id, key: gw.rootKey, name: 'root', dna: status.dna };
    parent = await create(root.key, 20);
    child = await create(parent.key, 5);
    grandchild = await create(child.key, 2);
    sibling = await create(parent.key, 2);
    uncle = await create(root.key, 10);
    cousin = await create(uncle.key, 2);
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('shows system news from root to every account, for 7 days by default', async () => {
    const response = await post('/x-news', root.key, { title: 'maintenance', content: 'Sunday 02:00 UTC' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; scope: string; news: Item };
    expect(body).toMatchObject({ success: true, scope: 'system', news: { title: 'maintenance' } });
    const lifetime = Date.parse(body.news.expires_at) - Date.parse(body.news.created_at);
    expect(lifetime).toBe(7 * DAY_MS);
    for (const member of [root, parent, child, grandchild, sibling, uncle, cousin]) {
      expect(titles((await newsOf(member)).system_news)).toEqual(['maintenance']);
    }
  });

  it('refuses system news from anyone but root, and without a key', async () => {
    const before = await rowCount();
    expect((await post('/x-news', parent.key, { title: 'x', content: 'y' })).status).toBe(403);
    const anonymous = await gw.request('/x-news', {
      method: 'POST',
      key: null,
      json: { title: 'x', content: 'y' },
    });
    expect(anonymous.status).toBe(401);
    expect((await gw.request('/x-news', { method: 'DELETE', key: child.key })).status).toBe(403);
    expect(await rowCount()).toBe(before);
  });

  it('delivers user news to the target only, for 32 days by default, by id or username', async () => {
    const byId = await post(`/x-news/${child.id}`, parent.key, { title: 'for child', content: 'hello' });
    expect(byId.status).toBe(200);
    const body = (await byId.json()) as { scope: string; news: Item };
    expect(body.scope).toBe('user');
    expect(Date.parse(body.news.expires_at) - Date.parse(body.news.created_at)).toBe(32 * DAY_MS);
    const byName = await post(`/x-news/${grandchild.name}`, parent.key, {
      title: 'for grandchild',
      content: 'hi',
    });
    expect(byName.status).toBe(200);

    expect(titles((await newsOf(child)).user_news)).toEqual(['for child']);
    expect(titles((await newsOf(grandchild)).user_news)).toEqual(['for grandchild']);
    for (const member of [parent, sibling, cousin, uncle, root]) {
      expect((await newsOf(member)).user_news).toEqual([]);
    }
  });

  it('lets only an ancestor target an account: 403 outside the tree, 404 for nobody', async () => {
    const before = await rowCount();
    const attempts: Array<[Member, string, number]> = [
      [child, String(parent.id), 403], // a descendant cannot post to its parent
      [child, String(child.id), 403], // nor to itself as a user
      [sibling, String(child.id), 403], // a sibling is not an ancestor
      [uncle, String(child.id), 403], // nor is an uncle
      [cousin, grandchild.name, 403],
      [child, sibling.dna, 403], // a DNA path outside the caller's own
      [uncle, parent.dna, 403],
      [parent, '987654321', 404],
      [parent, `${root.dna}987654321.`, 404],
    ];
    for (const [caller, target, status] of attempts) {
      const response = await post(`/x-news/${target}`, caller.key, { title: 't', content: 'c' });
      expect({ target, status: response.status }).toEqual({ target, status });
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe(status === 403 ? 'forbidden' : 'not_found');
    }
    expect(await rowCount()).toBe(before);
  });

  it('scopes DNA news to the path and everything under it, never a sibling or cousin tree', async () => {
    expect(
      (await post(`/x-news/${parent.dna}`, parent.key, { title: 'parent tree', content: 'c' })).status,
    ).toBe(200);
    expect(
      (await post(`/x-news/${child.dna}`, parent.key, { title: 'child tree', content: 'c' })).status,
    ).toBe(200);
    expect(
      (await post(`/x-news/${uncle.dna}`, uncle.key, { title: 'uncle tree', content: 'c' })).status,
    ).toBe(200);

    expect(titles((await newsOf(parent)).dna_news)).toEqual(['parent tree']);
    expect(titles((await newsOf(child)).dna_news)).toEqual(['child tree', 'parent tree']);
    expect(titles((await newsOf(grandchild)).dna_news)).toEqual(['child tree', 'parent tree']);
    expect(titles((await newsOf(sibling)).dna_news)).toEqual(['parent tree']);
    expect(titles((await newsOf(uncle)).dna_news)).toEqual(['uncle tree']);
    expect(titles((await newsOf(cousin)).dna_news)).toEqual(['uncle tree']);
    expect((await newsOf(root)).dna_news).toEqual([]);
    // The old path answers the same.
    expect(await newsOf(grandchild, '/dashboard/x-user-news')).toEqual(await newsOf(grandchild));
  });

  it('stops showing an item once it has expired', async () => {
    const response = await post(`/x-news/${sibling.id}`, parent.key, {
      title: 'short',
      content: 'c',
      days: 1,
    });
    const { news } = (await response.json()) as { news: Item };
    expect(titles((await newsOf(sibling)).user_news)).toEqual(['short']);
    await database.query(
      `UPDATE news.news_items SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [news.id],
    );
    expect((await newsOf(sibling)).user_news).toEqual([]);
  });

  it('accepts a title of 100 and content of 1000 characters and refuses 101 and 1001 with 400', async () => {
    const ok = await post(`/x-news/${cousin.id}`, uncle.key, {
      title: 't'.repeat(100),
      content: 'c'.repeat(1000),
    });
    expect(ok.status).toBe(200);
    const before = await rowCount();
    for (const json of [
      { title: 't'.repeat(101), content: 'c' },
      { title: 't', content: 'c'.repeat(1001) },
      { title: '', content: 'c' },
      { title: 't', content: 'c', days: 0 },
      { title: 't' },
      { title: 't', content: 'c', extra: 1 },
    ]) {
      const response = await post(`/x-news/${cousin.id}`, uncle.key, json);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; type: string } };
      expect(body.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error' });
    }
    expect(await rowCount()).toBe(before);
  });

  it('deletes all items of a target, and root deletes all system news', async () => {
    await post(`/x-news/${child.id}`, parent.key, { title: 'second for child', content: 'c' });
    expect((await gw.request(`/x-news/${child.id}`, { method: 'DELETE', key: sibling.key })).status).toBe(
      403,
    );
    const removed = await gw.request(`/x-news/${child.id}`, { method: 'DELETE', key: parent.key });
    expect(await removed.json()).toEqual({ success: true, scope: 'user', deleted: 2 });
    expect((await newsOf(child)).user_news).toEqual([]);
    expect(titles((await newsOf(grandchild)).user_news)).toEqual(['for grandchild']);

    const tree = await gw.request(`/x-news/${child.dna}`, { method: 'DELETE', key: parent.key });
    expect(await tree.json()).toEqual({ success: true, scope: 'dna', deleted: 1 });
    expect(titles((await newsOf(grandchild)).dna_news)).toEqual(['parent tree']);

    const system = await gw.request('/x-news', { method: 'DELETE' });
    expect(await system.json()).toEqual({ success: true, scope: 'system', deleted: 1 });
    expect((await newsOf(cousin)).system_news).toEqual([]);
  });
});

describe('GET /dashboard/conf and signup switched off', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ env: { USER_MIN_BALANCE: '1.5', USER_API_BALANCE: '0.25' } });
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
  });

  it('answers the thresholds, the version and the signup switches to any user', async () => {
    const response = await gw.request('/dashboard/conf');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      UserMinBalance: 1.5,
      UserApiBalance: 0.25,
      SystemVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      Features: { sign_enable: false, safe_enable: true },
    });
    expect((await gw.request('/dashboard/conf', { key: null })).status).toBe(401);
  });

  it('answers 404 with a clear message on every signup route when SIGN_ENABLE is off', async () => {
    for (const [path, init] of [
      ['/x-sign', { method: 'POST', json: { email: 'someone@example.com' } }],
      ['/x-sign/verify', { method: 'POST', json: { email: 'someone@example.com', code: '123456' } }],
    ] as const) {
      const response = await gw.request(path, { ...init, key: null });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        success: false,
        message: 'Sign-up is disabled on this gateway',
      });
    }
    const page = await gw.request('/x-sign/activate?token=abc', { key: null });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const disabled = await page.text();
    expect(disabled).toContain('Sign-up is disabled on this gateway');
    expect(disabled).not.toContain('/console/signup');
  });
});
