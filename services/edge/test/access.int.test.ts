import { ErrorCode } from '@gw/kit';
import {
  AUTH_CACHE_UNTIL_EVENT,
  createUser,
  expectError,
  startGateway,
  waitFor,
  type Created,
  type Gateway,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Who may use a key from where, and what a disabled or suspended account may still do. The
 * tests' own address is 127.0.0.1; other client addresses arrive through an edge replica that
 * trusts 127.0.0.1 as a proxy and reads X-Forwarded-For.
 */
describe('access lists and account state at the edge', () => {
  let gw: Gateway;
  /** An edge behind a "load balancer" at 127.0.0.1. */
  let behindProxy: string;

  beforeAll(async () => {
    gw = await startGateway({ env: AUTH_CACHE_UNTIL_EVENT });
    behindProxy = await gw.startEdgeReplica({
      GW_TRUSTED_PROXIES: '127.0.0.1/32, ::1',
      GW_AUTH_FAILURES_PER_MINUTE: '3',
    });
  });

  afterAll(async () => {
    await gw.stop();
  });

  const status = (user: Created, forwardedFor?: string, base = behindProxy) =>
    gw.request('/dashboard/status', {
      key: user.key,
      base,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    });

  const update = async (user: Created, changes: Record<string, unknown>) => {
    const response = await gw.request(`/x-users/${user.id}`, { method: 'PUT', json: changes });
    expect(response.status, await response.clone().text()).toBe(200);
  };

  it('AllowIPs holds CIDRs and single addresses, IPv4 and IPv6, an IPv4-mapped client matching its IPv4 range', async () => {
    const user = await createUser(gw, { extra: { AllowIPs: '10.0.0.0/8, 192.0.2.7 2001:db8::/32' } });
    expect((await status(user, '10.20.30.40')).status).toBe(200);
    expect((await status(user, '192.0.2.7')).status).toBe(200);
    expect((await status(user, '2001:db8:1::5')).status).toBe(200);
    expect((await status(user, '::ffff:10.1.2.3')).status).toBe(200);
    await expectError(await status(user, '192.0.2.8'), 403, ErrorCode.Forbidden, '192.0.2.8');
    await expectError(await status(user, '2001:db9::1'), 403, ErrorCode.Forbidden);
    // The edge the tests reach directly: the client is the socket peer, 127.0.0.1, not listed.
    await expectError(await status(user, undefined, gw.baseUrl), 403, ErrorCode.Forbidden, '127.0.0.1');
  });

  it('refuses an AllowIPs entry that is neither an address nor a CIDR, on create and on update, changing nothing', async () => {
    const created = await gw.request('/x-users', {
      method: 'POST',
      json: {
        Name: 'badipsuser',
        Email: 'badipsuser@example.com',
        CreditGranted: 2,
        AllowIPs: '10.0.0.0/8 intranet',
      },
    });
    await expectError(created, 400, ErrorCode.InvalidRequest, '"intranet"');
    expect((await gw.request('/x-users/badipsuser')).status).toBe(404);

    const user = await createUser(gw, { extra: { AllowIPs: '10.0.0.0/8' } });
    const updated = await gw.request(`/x-users/${user.id}`, {
      method: 'PUT',
      json: { AllowIPs: '300.1.1.1' },
    });
    await expectError(updated, 400, ErrorCode.InvalidRequest, '"300.1.1.1"');
    const stored = (await (await gw.request(`/x-users/${user.id}`)).json()) as { AllowIPs?: string };
    expect(JSON.stringify(stored)).toContain('10.0.0.0/8');
  });

  it("holds a subaccount to its ancestors' AllowIPs too, including a list narrowed after its creation", async () => {
    const parent = await createUser(gw, { credit: 10, extra: { AllowIPs: '10.0.0.0/8, 127.0.0.1' } });
    const child = await createUser(gw, { parentKey: parent.key });
    expect((await status(child, '10.1.1.1')).status).toBe(200);
    await expectError(await status(child, '192.0.2.1'), 403, ErrorCode.Forbidden, '192.0.2.1');
    await update(parent, { AllowIPs: '10.9.0.0/16, 127.0.0.1' });
    await waitFor(async () => (await status(child, '10.1.1.1')).status === 403, "the parent's narrower list");
    expect((await status(child, '10.9.1.1')).status).toBe(200);
  });

  it('believes X-Forwarded-For only from trusted proxies: the right-most untrusted hop is the client', async () => {
    const user = await createUser(gw, { extra: { AllowIPs: '10.0.0.0/8' } });
    // A forged header straight to an edge that trusts no proxy changes nothing.
    await expectError(await status(user, '10.1.1.1', gw.baseUrl), 403, ErrorCode.Forbidden, '127.0.0.1');
    // Through the trusted proxy: the hop it saw is the client, whatever the client wrote before it.
    expect((await status(user, '203.0.113.9, 10.1.1.1')).status).toBe(200);
    await expectError(await status(user, '10.1.1.1, 203.0.113.9'), 403, ErrorCode.Forbidden, '203.0.113.9');
    // Trusted hops at the right end are skipped.
    expect((await status(user, '10.1.1.1, 127.0.0.1')).status).toBe(200);
  });

  it('refuses AI calls and changes of a disabled or suspended account with a reason, and keeps its reads', async () => {
    const user = await createUser(gw, { credit: 5 });
    const attempts = async () => ({
      ai: await gw.request('/v1/chat/completions', {
        method: 'POST',
        key: user.key,
        json: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      }),
      write: await gw.request('/x-users', {
        method: 'POST',
        key: user.key,
        json: { Name: `${user.name}sub`, Email: `${user.name}sub@example.com`, CreditGranted: 2 },
      }),
      read: await gw.request('/dashboard/status', { key: user.key }),
    });

    await update(user, { Status: false });
    await waitFor(async () => (await attempts()).ai.status === 403, 'the disabled state at the edge');
    let seen = await attempts();
    await expectError(seen.ai, 403, ErrorCode.Forbidden, 'disabled');
    await expectError(seen.write, 403, ErrorCode.Forbidden, 'disabled');
    expect(seen.read.status).toBe(200);

    await update(user, { Status: true, Suspended: true });
    await waitFor(async () => {
      const body = await (await attempts()).ai.text();
      return body.includes('suspended');
    }, 'the suspended state at the edge');
    seen = await attempts();
    await expectError(seen.ai, 403, ErrorCode.Forbidden, 'suspended');
    await expectError(seen.write, 403, ErrorCode.Forbidden, 'suspended');
    expect(seen.read.status).toBe(200);
  });

  it.each([
    [{ Suspended: true }, 'suspended'],
    [{ Status: false }, 'disabled'],
  ])(
    'refuses AI calls and changes of the accounts below one set %o, cached keys included',
    async (change, word) => {
      const parent = await createUser(gw, { credit: 10 });
      const child = await createUser(gw, { parentKey: parent.key, credit: 4 });
      const grandchild = await createUser(gw, { parentKey: child.key, credit: 2 });
      const ai = () =>
        gw.request('/v1/chat/completions', {
          method: 'POST',
          key: grandchild.key,
          json: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        });
      // Both keys are cached at the edge before their ancestor is turned off.
      expect((await ai()).status).not.toBe(403);
      expect((await gw.request('/dashboard/status', { key: child.key })).status).toBe(200);

      await update(parent, change);
      await waitFor(async () => (await ai()).status === 403, 'the ancestor state at the edge');
      await expectError(await ai(), 403, ErrorCode.Forbidden, `an account above this one is ${word}`);
      const write = await gw.request('/x-users', {
        method: 'POST',
        key: child.key,
        json: { Name: `${child.name}sub`, Email: `${child.name}sub@example.com`, CreditGranted: 2 },
      });
      await expectError(write, 403, ErrorCode.Forbidden, `an account above this one is ${word}`);
      expect((await gw.request('/dashboard/status', { key: child.key })).status).toBe(200);
    },
  );

  it('holds a client address that keeps failing authentication (429 with Retry-After), never for a working key', async () => {
    const user = await createUser(gw);
    const from = (client: string, key: string) =>
      gw.request('/dashboard/status', { key, base: behindProxy, headers: { 'x-forwarded-for': client } });
    expect((await from('198.51.100.2', user.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      await expectError(await from('198.51.100.1', `sk-random-${i}`), 401, ErrorCode.Unauthenticated);
    }
    // A held address still gets one key looked up a second: the next bad keys meet the 429.
    let refused: Response | undefined;
    for (let i = 3; i < 10 && refused === undefined; i++) {
      const answer = await from('198.51.100.1', `sk-random-${i}`);
      refused = answer.status === 429 ? answer : undefined;
    }
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectError(refused!, 429, ErrorCode.RateLimited, 'failed authentications');
    // Behind one NAT address, the key that works is never locked out.
    expect((await from('198.51.100.1', user.key)).status).toBe(200);
    expect((await from('198.51.100.3', 'sk-random-x')).status).toBe(401);
  });
});
