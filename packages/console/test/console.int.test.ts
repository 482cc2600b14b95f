import { MockUpstream, startGateway, waitFor, waitForRoute, type Gateway } from '@gw/testkit';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, expectAccessible, launchChromium, screenshot, waitForNamed } from './browser.js';

const MODEL = 'gpt-4o-mini';
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The console in a real browser against a real gateway whose upstream is the mock: one story
 * from root's first sign-in to a subaccount rotating its key, with an accessibility check and a
 * screenshot of each page on the way.
 */
describe('web console at /console/', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Policy violations the browser reported: the console must need none of what the CSP forbids. */
  const cspViolations: string[] = [];
  let root: Page;
  let child: Page;
  let childKey = '';
  const childName = `child${Date.now().toString(36)}`;

  const open = async (width = 1280) => {
    // Reduced motion: the console then draws dialogs and charts without transitions, so what the
    // test reads (colours for axe, pixels for screenshots) is never caught mid-fade.
    const context = await browser.newContext({ viewport: { width, height: 900 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) {
        cspViolations.push(message.text());
      }
    });
    return page;
  };

  const signIn = async (page: Page, key: string) => {
    await page.goto(`${gw.baseUrl}/console/`);
    await page.getByLabel(/^API key/).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  };

  const visit = async (page: Page, label: string, heading = label) => {
    await page.getByRole('navigation').getByRole('link', { name: label }).click();
    await page.getByRole('heading', { name: heading, level: 2 }).waitFor();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    mock = await MockUpstream.start();
    gw = await startGateway();
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const context of contexts) {
      await context.close();
    }
    await (browser as Browser | undefined)?.close();
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
  });

  it('offers sign-up and sign-in without a session, and keeps no key in browser storage', async () => {
    root = await open();
    await root.goto(`${gw.baseUrl}/console/signup`);
    await root.getByRole('heading', { name: 'Sign up' }).waitFor();
    await expectAccessible(root, 'sign-up');
    await screenshot(root, 'signup');
    await root.goto(`${gw.baseUrl}/console/`);
    await root.getByLabel(/^API key/).waitFor();
    await expectAccessible(root, 'sign-in');
    await screenshot(root, 'sign-in');
    await signIn(root, gw.rootKey);
    const stored = await root.evaluate(
      () => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)]) + document.cookie,
    );
    expect(stored).not.toContain(gw.rootKey);
    expect(stored).not.toContain('gw_console');
  });

  it('root adds a provider key and maps a Level to it', async () => {
    await visit(root, 'Provider keys');
    await root.getByLabel(/^Name/).fill('mock-upstream');
    await root.getByLabel('Provider URL').fill(`${mock.url}/v1`);
    await root.getByLabel(/^Secret key/).fill('sk-upstream-console-test-0001');
    await root.getByLabel(/^Level/).fill('1');
    await root.getByRole('button', { name: 'Add key' }).click();
    await root.getByRole('cell', { name: 'mock-upstream', exact: true }).waitFor();
    await root.getByRole('button', { name: 'Edit mock-upstream' }).click();
    const editKey = root.getByRole('dialog', { name: 'Edit mock-upstream' });
    await editKey.getByLabel(/^Name/).fill('mock-upstream-a');
    await expectAccessible(root, 'provider keys, editing a key');
    await editKey.getByRole('button', { name: 'Save mock-upstream' }).click();
    await root.getByRole('cell', { name: 'mock-upstream-a', exact: true }).waitFor();
    await expectAccessible(root, 'provider keys');
    await screenshot(root, 'provider-keys');

    await visit(root, 'Configuration');
    // The Level mapper as a table: add two rows and save, then remove one and save again; the
    // stored mapping follows the table (a removed row is gone, not left behind).
    const levelMapper = async () =>
      (
        (await (await gw.request('/x-config')).json()) as {
          configs: { LEVEL_MAPPER: Record<string, number> };
        }
      ).configs.LEVEL_MAPPER;
    const saved = root.getByRole('status').filter({ hasText: 'Saved' });
    for (const [pattern, level] of [
      ['gpt-4o*', '1'],
      ['o1*', '1'],
    ]) {
      await root.getByRole('button', { name: 'Add a row to Level mapper' }).click();
      await root
        .getByRole('textbox', { name: /^Level mapper: Pattern \d+$/ })
        .last()
        .fill(pattern ?? '');
      await root
        .getByRole('textbox', { name: /^Level mapper: Level \d+$/ })
        .last()
        .fill(level ?? '');
    }
    await root.getByRole('button', { name: 'Save Level mapper' }).click();
    await saved.waitFor();
    expect(await levelMapper()).toMatchObject({ 'gpt-4o*': 1, 'o1*': 1 });
    await root.getByRole('button', { name: 'Remove o1* from Level mapper' }).click();
    await saved.waitFor({ state: 'detached' });
    await root.getByRole('button', { name: 'Save Level mapper' }).click();
    await saved.waitFor();
    expect(await levelMapper()).not.toHaveProperty(['o1*']);
    expect(await levelMapper()).toHaveProperty(['gpt-4o*'], 1);
    await expectAccessible(root, 'configuration');
    await screenshot(root, 'configuration');
    const keys = (await (await gw.request('/x-keys')).json()) as { keys: Array<{ ID: number }> };
    await waitForRoute(
      gw,
      MODEL,
      1,
      keys.keys.map((key) => key.ID),
    );
  });

  it('root creates and funds a subaccount, whose key calls through the openai SDK', async () => {
    await visit(root, 'Subaccounts');
    await root.getByLabel(/^Name/).fill(childName);
    await root.getByLabel('E-mail').fill(`${childName}@example.com`);
    await root.getByLabel('Credit granted (USD)').fill('10');
    // The spec's optional fields: the API's refusal lands on its field, then a valid value is sent.
    await root.getByRole('switch', { name: /More settings/ }).check();
    const days = root.getByRole('textbox', { name: 'Credit valid for (days)' });
    await days.fill('5000');
    await root.getByRole('textbox', { name: 'Requests per minute' }).fill('600');
    await root.getByRole('button', { name: 'Create' }).click();
    await root.getByText(/^Days: /).waitFor();
    await expectAccessible(root, 'subaccounts, a field refused');
    await days.fill('30');
    await root.getByRole('button', { name: 'Create' }).click();
    childKey = (await root.getByTestId('new-subaccount-key').textContent()) ?? '';
    expect(childKey).toMatch(/^sk-/);
    const created = (await (await gw.request(`/x-users/${childName}`)).json()) as {
      users: Array<{ RPM: number }>;
    };
    expect(created.users[0]?.RPM).toBe(600);
    await root.getByRole('cell', { name: new RegExp(childName) }).waitFor();
    await expectAccessible(root, 'subaccounts');
    await screenshot(root, 'subaccounts');

    // Search and the L/G/R/T/F filters narrow the tree: no account of Level 9, then the child again.
    const row = root.getByRole('row').filter({ hasText: childName });
    await root.getByLabel('Search by name').fill(childName.slice(0, 8));
    await root.getByRole('combobox', { name: 'Filter by' }).click();
    await root.getByRole('option', { name: 'Level (L)' }).click();
    await root.getByLabel('Value').fill('9');
    await root.getByRole('button', { name: 'Search' }).click();
    await row.waitFor({ state: 'detached' });
    await root.getByLabel('Value').fill('');
    await root.getByRole('button', { name: 'Search' }).click();
    await row.waitFor();

    // ModelMapper and ModelLimits: the API's message lands on its field, a valid value is saved.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = root.getByRole('dialog', { name: `Edit ${childName}` });
    const mapperField = edit.getByRole('textbox', { name: 'Model mapper (pattern=model, …)' });
    await mapperField.fill('nonsense');
    await edit.getByRole('button', { name: `Save ${childName}` }).click();
    await edit.getByText(/^ModelMapper holds entries .*nonsense/).waitFor();
    await mapperField.fill('');
    await edit.getByRole('textbox', { name: /^Model limits/ }).fill('{"gpt-4o*": {"rpm": 600}}');
    await edit.getByLabel('Hard limit (USD)').fill('5');
    await expectAccessible(root, 'subaccounts, editing an account');
    await screenshot(root, 'subaccount-edit');
    await edit.getByRole('button', { name: `Save ${childName}` }).click();
    await edit.waitFor({ state: 'hidden' });
    const saved = (await (await gw.request(`/x-users/${childName}`)).json()) as {
      users: Array<{ ModelLimits: Record<string, { rpm?: number }>; ModelMapper: string; HardLimit: number }>;
    };
    expect(saved.users[0]?.HardLimit).toBe(5);
    expect(saved.users[0]?.ModelLimits['gpt-4o*']?.rpm).toBe(600);
    expect(saved.users[0]?.ModelMapper).toBe('');

    // Delete shows the refund first (balance less the fee); Cancel keeps the account.
    await row.getByRole('button', { name: 'Delete' }).click();
    const remove = root.getByRole('dialog', { name: `Delete ${childName}?` });
    await remove.getByText('You get back $9.8000: its balance of $10.0000 less a fee of $0.2000').waitFor();
    await expectAccessible(root, 'subaccounts, deleting an account');
    await remove.getByRole('button', { name: 'Cancel' }).click();
    await remove.waitFor({ state: 'hidden' });

    const client = new OpenAI({ apiKey: childKey, baseURL: `${gw.baseUrl}/v1` });
    for (let call = 0; call < 3; call += 1) {
      const answer = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(answer.choices.length).toBeGreaterThan(0);
    }
    await waitFor(async () => {
      const live = (await (await gw.request('/dashboard/live', { key: childKey })).json()) as {
        usage: { today: { requests: number } };
      };
      return live.usage.today.requests === 3;
    }, 'the calls on the subaccount bill');
  });

  it('the subaccount signs in at phone width and sees its calls on its chart and bill, but no owner page', async () => {
    child = await open(390);
    await signIn(child, childKey);
    await waitForNamed(child, 'img', new RegExp(`Requests per day: .*${today()} 3`));
    await child
      .getByText(/^Hard limit \(calls stop\): \$[\d.]+ of \$5\.0000 used/)
      .first()
      .waitFor();
    await expectAccessible(child, 'overview');
    await screenshot(child, 'overview-phone');
    await child.getByRole('button', { name: 'Menu' }).click();
    const nav = child.getByRole('navigation');
    await nav.getByRole('link', { name: 'Usage and bills' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Provider keys' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Configuration' }).count()).toBe(0);
    await visit(child, 'Usage and bills');
    await child.getByRole('cell', { name: MODEL }).waitFor();
    await expectAccessible(child, 'usage');
    // The short forms of a span (`d`, `days`) find the calls a span before them did not.
    const before = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    for (const span of ['Today', 'Last 30 days']) {
      await child.getByLabel('From (UTC)').fill(before);
      await child.getByLabel('To (UTC)').fill(before);
      await child.getByRole('button', { name: 'Show' }).click();
      await child.getByText(/^0 requests · /).waitFor();
      await child.getByRole('button', { name: span }).click();
      await child.getByText(/^3 requests · /).waitFor();
    }
    await child.getByLabel('To (UTC)').fill(new Date().toISOString().slice(0, 10));
    await screenshot(child, 'usage-phone');
    // A span over 30 days has a fee: the page says so and asks first; Cancel calls nothing.
    const from = new Date(Date.now() - 59 * 86_400_000).toISOString().slice(0, 10);
    await child.getByLabel('From (UTC)').fill(from);
    await child.getByRole('button', { name: 'Show' }).click();
    const ask = child.getByRole('dialog', { name: 'This query has a fee' });
    await ask.getByText('A bill over 60 days costs $0.0100').waitFor();
    await expectAccessible(child, 'usage, asking for the fee');
    await screenshot(child, 'usage-fee-phone');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    await child.getByRole('button', { name: 'Show' }).click();
    await ask.getByRole('button', { name: 'Pay $0.0100 and show' }).click();
    await child.getByText('this query cost a fee of $0.0100').waitFor();
    // The owner pages' URL shows the overview; their API answers 403 to the session.
    await child.goto(`${gw.baseUrl}/console/keys`);
    await child.getByRole('heading', { name: 'Overview' }).waitFor();
    const status = await child.evaluate(async () => (await fetch('/x-keys')).status);
    expect(status).toBe(403);
    const config = await child.evaluate(async () => (await fetch('/x-config')).status);
    expect(config).toBe(403);
    // The browser's session cookie is no key for AI calls, and a write without the CSRF token is
    // refused before it does anything (the edge's session test covers every case).
    const answers = await child.evaluate(async (phrase) => {
      const json = { 'content-type': 'application/json' };
      const chat = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const rotate = await fetch('/x-self', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ confirm: phrase }),
      });
      return [chat.status, rotate.status];
    }, `${today()}-ROTATE-SELF`);
    expect(answers).toEqual([401, 403]);
    expect((await gw.request('/dashboard/status', { key: childKey })).status).toBe(200);
  });

  it('root publishes news that the subaccount then reads', async () => {
    await visit(root, 'News');
    await root.getByLabel('Audience: "system", an account id or a DNA').fill('system');
    await root.getByLabel('Title (up to 100 characters)').fill('Maintenance tonight');
    await root.getByLabel('Content (up to 1000 characters)').fill('The gateway restarts at 02:00 UTC.');
    await root.getByRole('button', { name: 'Publish' }).click();
    await root.getByRole('article').filter({ hasText: 'Maintenance tonight' }).waitFor();
    await expectAccessible(root, 'news');
    await screenshot(root, 'news');
    await visit(root, 'Operation log');
    await root.getByRole('cell', { name: 'success' }).first().waitFor();
    await expectAccessible(root, 'operation log');
    await screenshot(root, 'operation-log');

    await child.setViewportSize({ width: 1280, height: 900 });
    await child.goto(`${gw.baseUrl}/console/news`);
    await child.getByRole('article').filter({ hasText: 'Maintenance tonight' }).waitFor();
  });

  it('reads the same in dark mode, at full width', async () => {
    await visit(child, 'Overview');
    await waitForNamed(child, 'img', new RegExp(`Requests per day: .*${today()} 3`));
    await screenshot(child, 'overview');
    await child.getByRole('button', { name: 'Dark mode' }).click();
    await child.locator('html[data-mantine-color-scheme="dark"]').waitFor({ state: 'attached' });
    await expectAccessible(child, 'overview, dark');
    await screenshot(child, 'overview-dark');
    await child.getByRole('button', { name: 'Light mode' }).click();
    await child.locator('html[data-mantine-color-scheme="light"]').waitFor({ state: 'attached' });
  });

  it('the subaccount rotates its key: the new key is shown once and the old session ends', async () => {
    await visit(child, 'Key rotation');
    await expectAccessible(child, 'key rotation');
    await child.getByLabel('Confirmation phrase').fill(`${today()}-ROTATE-SELF`);
    await child.getByRole('button', { name: 'Rotate my key' }).click();
    const rotated = (await child.getByTestId('rotated-key').textContent()) ?? '';
    expect(rotated).toMatch(/^sk-/);
    expect(rotated).not.toBe(childKey);
    await screenshot(child, 'key-rotation');
    const status = await child.evaluate(async () => (await fetch('/dashboard/status')).status);
    expect(status).toBe(401);
    expect((await gw.request('/dashboard/status', { key: childKey })).status).toBe(401);
    expect(cspViolations).toEqual([]);
  });
});
