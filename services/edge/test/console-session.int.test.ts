import { createHash } from 'node:crypto';
import { ErrorCode } from '@gw/kit';
import {
  AUTH_CACHE_UNTIL_EVENT,
  createUser,
  expectError,
  startGateway,
  waitFor,
  type Created,
  type Gateway,
  type GatewayRequestInit,
} from '@gw/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
}

const today = () => new Date().toISOString().slice(0, 10);

/**
 * The console's session: an API key exchanged for an HttpOnly cookie that authenticates the
 * management API only, with a CSRF token on writes, ending on sign-out, idleness, rotation,
 * disable and delete. The cache keeps keys until an event, so an ended session shows the edge
 * acted on it.
 */
describe('POST|GET|DELETE /console/api/session', () => {
  let gw: Gateway;
  /** An edge behind a TLS-terminating proxy at 127.0.0.1, with a one-second idle period. */
  let behindProxy: string;

  beforeAll(async () => {
    gw = await startGateway({ env: AUTH_CACHE_UNTIL_EVENT });
    behindProxy = await gw.startEdgeReplica({
      GW_TRUSTED_PROXIES: '127.0.0.1/32, ::1',
      GW_CONSOLE_IDLE_SECONDS: '1',
    });
  });

  afterAll(async () => {
    await gw.stop();
  });

  const signIn = async (
    key: string,
    base = gw.baseUrl,
    headers: Record<string, string> = {},
  ): Promise<Session> => {
    const response = await gw.request('/console/api/session', {
      method: 'POST',
      key: null,
      base,
      headers,
      json: { key },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).not.toContain(key);
    const setCookie = response.headers.get('set-cookie') ?? '';
    const body = JSON.parse(text) as { csrf_token: string };
    return { cookie: setCookie.split(';')[0] ?? '', csrf: body.csrf_token, setCookie };
  };

  const withSession = (
    path: string,
    session: Session,
    init: Omit<GatewayRequestInit, 'headers'> & { headers?: Record<string, string> } = {},
  ) => gw.request(path, { ...init, key: null, headers: { cookie: session.cookie, ...init.headers } });

  const status = (session: Session, base = gw.baseUrl) => withSession('/dashboard/status', session, { base });

  it('sets an HttpOnly, SameSite=Strict cookie, Secure only when a trusted proxy says https, and answers the caller', async () => {
    const user = await createUser(gw);
    const plain = await signIn(user.key);
    expect(plain.setCookie).toMatch(
      /^gw_console=[\w-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    const status200 = await status(plain);
    expect(status200.status).toBe(200);
    expect(((await status200.json()) as { id: number }).id).toBe(user.id);

    const overTls = await signIn(user.key, behindProxy, { 'x-forwarded-proto': 'https' });
    expect(overTls.setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    // The other replica sees the same session (Redis), and hands the CSRF token out again.
    const again = await withSession('/console/api/session', plain, { base: behindProxy });
    expect(((await again.json()) as { csrf_token: string }).csrf_token).toBe(plain.csrf);
  });

  it('refuses a wrong key like any Bearer key, and opens no session', async () => {
    const response = await gw.request('/console/api/session', {
      method: 'POST',
      key: null,
      json: { key: 'sk-not-a-key' },
    });
    await expectError(response, 401, ErrorCode.Unauthenticated);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('never authenticates an AI call: /v1/models, /models and /v1/chat/completions answer 401', async () => {
    const session = await signIn((await createUser(gw)).key);
    await expectError(await withSession('/v1/models', session), 401, ErrorCode.Unauthenticated);
    await expectError(await withSession('/models', session), 401, ErrorCode.Unauthenticated);
    const chat = await withSession('/v1/chat/completions', session, {
      method: 'POST',
      headers: { 'x-csrf-token': session.csrf },
      json: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(401);
  });

  it('refuses a write without the CSRF token (or with another) and changes nothing; with it the write is made', async () => {
    const parent = await createUser(gw, { credit: 20 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const session = await signIn(parent.key);
    const rename = (headers: Record<string, string>) =>
      withSession(`/x-users/${child.id}`, session, { method: 'PUT', headers, json: { Alias: 'renamed' } });
    await expectError(await rename({}), 403, ErrorCode.Forbidden, 'x-csrf-token');
    await expectError(
      await rename({ 'x-csrf-token': `${session.csrf.slice(1)}x` }),
      403,
      ErrorCode.Forbidden,
    );
    const unchanged = await gw.request(`/x-users/${child.id}`, { key: parent.key });
    expect(JSON.stringify(await unchanged.json())).not.toContain('renamed');
    expect((await rename({ 'x-csrf-token': session.csrf })).status).toBe(200);
  });

  it('sign-out ends the session and clears the cookie', async () => {
    const session = await signIn((await createUser(gw)).key);
    await expectError(
      await withSession('/console/api/session', session, { method: 'DELETE' }),
      403,
      ErrorCode.Forbidden,
    );
    const out = await withSession('/console/api/session', session, {
      method: 'DELETE',
      headers: { 'x-csrf-token': session.csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(
      /^gw_console=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/,
    );
    await expectError(await status(session), 401, ErrorCode.Unauthenticated);
  });

  it('ends after the idle period', async () => {
    const session = await signIn((await createUser(gw)).key, behindProxy);
    expect((await status(session, behindProxy)).status).toBe(200);
    // Watched in Redis, not through the API: each use would start the idle period again.
    const id = createHash('sha256')
      .update(session.cookie.split('=')[1] ?? '')
      .digest('base64url');
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      const stored = `${gw.env.GW_CONSOLE_SESSION_PREFIX ?? ''}s:${id}`;
      expect(await redis.exists(stored)).toBe(1);
      await waitFor(async () => (await redis.exists(stored)) === 0, 'idle session expires', 10_000, 100);
    } finally {
      redis.disconnect();
    }
    await expectError(await status(session, behindProxy), 401, ErrorCode.Unauthenticated);
  });

  const rotateSelf = (user: Created) =>
    gw.request('/x-self', { method: 'POST', key: user.key, json: { confirm: `${today()}-ROTATE-SELF` } });

  it('ends with a key rotation, on this replica and on another', async () => {
    const user = await createUser(gw);
    const session = await signIn(user.key);
    const elsewhere = await signIn(user.key, behindProxy);
    const bySession = await withSession('/x-self', session, {
      method: 'POST',
      headers: { 'x-csrf-token': session.csrf },
      json: { confirm: `${today()}-ROTATE-SELF` },
    });
    expect(bySession.status).toBe(200);
    await expectError(await status(session), 401, ErrorCode.Unauthenticated);
    await expectError(await status(elsewhere, behindProxy), 401, ErrorCode.Unauthenticated);
  });

  it('ends when the key is rotated through the API by the key itself', async () => {
    const user = await createUser(gw);
    const session = await signIn(user.key);
    expect((await rotateSelf(user)).status).toBe(200);
    await expectError(await status(session), 401, ErrorCode.Unauthenticated);
  });

  it('ends when the parent disables or deletes the account', async () => {
    const parent = await createUser(gw, { credit: 20 });
    const disabled = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const deleted = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const disabledSession = await signIn(disabled.key);
    const deletedSession = await signIn(deleted.key);
    const disable = await gw.request(`/x-users/${disabled.id}`, {
      method: 'PUT',
      key: parent.key,
      json: { Status: false },
    });
    expect(disable.status).toBe(200);
    await waitFor(async () => (await status(disabledSession)).status === 401, 'disabled session ends');
    // Enabled again, the old session stays ended: a new sign-in is needed.
    await gw.request(`/x-users/${disabled.id}`, { method: 'PUT', key: parent.key, json: { Status: true } });
    await expectError(await status(disabledSession), 401, ErrorCode.Unauthenticated);

    const remove = await gw.request(`/x-users/${deleted.id}`, { method: 'DELETE', key: parent.key });
    expect(remove.status).toBe(200);
    await waitFor(async () => (await status(deletedSession)).status === 401, 'deleted session ends');
  });

  it('serves console pages with a strict Content-Security-Policy', async () => {
    const page = await fetch(`${gw.baseUrl}/console/`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });
});
