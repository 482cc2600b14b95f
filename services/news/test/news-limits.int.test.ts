import { ErrorCode } from '@gw/kit';
import { createUser, expectError, startGateway, type Created, type Gateway } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Page {
  system_news: Array<{ title: string }>;
  user_news: Array<{ title: string }>;
  dna_news: Array<{ title: string }>;
  page: number;
  size: number;
  system_total: number;
  user_total: number;
  dna_total: number;
}

/** Who may delete what, how many items one author may keep on one target, how fast it may post. */
describe('news limits (/x-news, /dashboard/news)', () => {
  let gw: Gateway;
  let root: { key: string; dna: string };
  let parent: Created;
  let child: Created;
  let grandchild: Created;

  const post = (target: string, key: string, title: string) =>
    gw.request(target === '' ? '/x-news' : `/x-news/${target}`, {
      method: 'POST',
      key,
      json: { title, content: 'body' },
    });
  const posted = async (target: string, key: string, title: string) =>
    expect((await post(target, key, title)).status).toBe(200);
  const newsOf = async (key: string, query = '') =>
    (await (await gw.request(`/dashboard/news${query}`, { key })).json()) as Page;

  beforeAll(async () => {
    gw = await startGateway({ env: { NEWS_MAX_ITEMS_PER_AUTHOR: '3', NEWS_POSTS_PER_MINUTE: '5' } });
    const status = (await (await gw.request('/dashboard/status')).json()) as { dna: string };
    root = { key: gw.rootKey, dna: status.dna };
    parent = await createUser(gw, { credit: 20 });
    child = await createUser(gw, { parentKey: parent.key, credit: 6 });
    grandchild = await createUser(gw, { parentKey: child.key, credit: 2 });
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
  });

  it('deletes only the items the caller or an account below it posted, never an ancestor’s', async () => {
    await posted(child.dna, root.key, 'from root');
    await posted(child.dna, parent.key, 'from parent');
    await posted(child.dna, child.key, 'from child');
    await posted(grandchild.dna, grandchild.key, 'from grandchild');
    await posted(String(grandchild.id), parent.key, 'user news from parent');

    const own = await gw.request(`/x-news/${child.dna}`, { method: 'DELETE', key: child.key });
    expect(await own.json()).toEqual({ success: true, scope: 'dna', deleted: 1 });
    const mine = await gw.request(`/x-news/${grandchild.id}`, { method: 'DELETE', key: child.key });
    expect(await mine.json()).toEqual({ success: true, scope: 'user', deleted: 0 });
    const seen = await newsOf(grandchild.key);
    expect(seen.dna_news.map((item) => item.title).sort()).toEqual([
      'from grandchild',
      'from parent',
      'from root',
    ]);
    expect(seen.user_news.map((item) => item.title)).toEqual(['user news from parent']);

    // The parent deletes its own and what was posted below it; root's stays.
    const above = await gw.request(`/x-news/${child.dna}`, { method: 'DELETE', key: parent.key });
    expect(await above.json()).toEqual({ success: true, scope: 'dna', deleted: 1 });
    expect((await newsOf(child.key)).dna_news.map((item) => item.title)).toEqual(['from root']);
  });

  it('keeps at most NEWS_MAX_ITEMS_PER_AUTHOR unexpired items per target and author', async () => {
    const author = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const target = await createUser(gw, { parentKey: author.key, credit: 2 });
    for (const title of ['one', 'two', 'three']) {
      await posted(String(target.id), author.key, title);
    }
    const before = (await newsOf(target.key)).user_total;
    await expectError(await post(String(target.id), author.key, 'four'), 429, ErrorCode.QuotaExceeded, '3');
    expect((await newsOf(target.key)).user_total).toBe(before);
    // Another target, or another author on the same target, is not held.
    await posted(author.dna, author.key, 'elsewhere');
    await posted(String(target.id), parent.key, 'another author');
  });

  it('refuses more than NEWS_POSTS_PER_MINUTE posts a minute from one author, with Retry-After', async () => {
    const author = await createUser(gw, { parentKey: parent.key, credit: 4 });
    const reader = await createUser(gw, { parentKey: author.key, credit: 2 });
    // Two targets, so the per-target cap (3) is not what stops the sixth post.
    for (let i = 0; i < 5; i += 1) {
      await posted(i < 3 ? author.dna : String(reader.id), author.key, `burst ${i}`);
    }
    const refused = await post(author.dna, author.key, 'burst 5');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectError(refused, 429, ErrorCode.RateLimited, 'minute');
  });

  it('pages /dashboard/news, every list the same page, with each list’s total', async () => {
    for (const title of ['s1', 's2', 's3']) {
      await posted('', root.key, title);
    }
    const first = await newsOf(grandchild.key, '?page=1&size=2');
    expect(first).toMatchObject({ page: 1, size: 2, system_total: 3 });
    expect(first.system_news.map((item) => item.title)).toEqual(['s3', 's2']);
    const second = await newsOf(grandchild.key, '?page=2&size=2');
    expect(second.system_news.map((item) => item.title)).toEqual(['s1']);
    expect((await newsOf(grandchild.key, '?size=5000')).size).toBe(100);
    await expectError(
      await gw.request('/dashboard/news?page=0', { key: grandchild.key }),
      400,
      ErrorCode.InvalidRequest,
      'page',
    );
  });
});
