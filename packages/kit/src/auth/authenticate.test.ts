import type { IncomingMessage } from 'node:http';
import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../api-key-hash.js';
import { INTERNAL_TOKEN_HEADER } from '../internal-token.js';
import { AddressList } from '../ip.js';
import { createLogger } from '../log.js';
import { AuthCache } from './auth-cache.js';
import { authenticateKey, CLIENT_ADDRESS_HEADER, clientOf, type Use } from './authenticate.js';
import { FailedAuthLimiter } from './failed-auth.js';
import { KeyUseRecorder } from './key-use.js';

const KEY = 'sk-gw-a-key-for-the-bearer-scheme-tests';
const CLIENT = '203.0.113.9';
const INTERNAL_TOKEN = 'an-internal-token-of-the-tests';

function deps(account: Partial<accounts.Account> = {}, failuresPerMinute = 100) {
  const stored = accounts.Account.fromPartial({ id: 7n, status: true, ...account });
  const lookups: string[] = [];
  const recorded: bigint[] = [];
  return {
    lookups,
    recorded,
    cache: new AuthCache(
      async (hash) => {
        lookups.push(hash);
        return hash === hashApiKey(KEY) ? stored : undefined;
      },
      30_000,
      Date.now,
      5_000,
    ),
    keyUses: new KeyUseRecorder(
      async (uses) => {
        recorded.push(...uses.map((use) => use.accountId));
      },
      createLogger('test', 'silent'),
      60_000,
    ),
    failedAuth: new FailedAuthLimiter(failuresPerMinute),
    trustedProxies: AddressList.parse('') as AddressList,
    internalToken: INTERNAL_TOKEN,
  };
}

const call = (
  d: ReturnType<typeof deps>,
  authorization: string | undefined,
  use: Use = 'read',
  client = CLIENT,
) => authenticateKey(d, { authorization, client }, use);

describe('authenticateKey', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])(
    'accepts the %s scheme (RFC 9110: case-insensitive)',
    async (scheme) => {
      expect((await call(deps(), `${scheme} ${KEY}`)).id).toBe(7n);
    },
  );

  it.each([undefined, '', KEY, `Basic ${KEY}`, `Bearer  ${KEY}`, 'Bearer '])(
    'refuses a missing or malformed Authorization (%s) with 401',
    async (authorization) => {
      await expect(call(deps(), authorization)).rejects.toMatchObject({ code: 'unauthenticated' });
    },
  );

  it('takes the key from x-api-key on AI calls only, and never beside an Authorization header', async () => {
    const viaApiKey = (
      d: ReturnType<typeof deps>,
      apiKey: string | string[],
      use: Use,
      authorization?: string,
    ) => authenticateKey(d, { authorization, apiKey, client: CLIENT }, use);
    expect((await viaApiKey(deps(), KEY, 'ai')).id).toBe(7n);
    await expect(viaApiKey(deps(), KEY, 'read')).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(viaApiKey(deps(), KEY, 'write')).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(viaApiKey(deps(), [KEY, KEY], 'ai')).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(viaApiKey(deps(), `${KEY} x`, 'ai')).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(viaApiKey(deps(), KEY, 'ai', 'Basic abc')).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    await expect(viaApiKey(deps(), 'sk-gw-unknown', 'ai')).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'invalid API key',
    });
  });

  it('holds a key to AllowIPs (CIDRs, IPv6, IPv4-mapped) and refuses every other address', async () => {
    const d = deps({ allowIps: '198.51.100.0/24, 2001:db8::/32' });
    expect((await call(d, `Bearer ${KEY}`, 'read', '198.51.100.20')).id).toBe(7n);
    expect((await call(d, `Bearer ${KEY}`, 'read', '::ffff:198.51.100.20')).id).toBe(7n);
    expect((await call(d, `Bearer ${KEY}`, 'read', '2001:db8::5')).id).toBe(7n);
    await expect(call(d, `Bearer ${KEY}`, 'read', '198.51.101.1')).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('lets a disabled or suspended account read, and refuses its writes and AI calls saying why', async () => {
    for (const [state, word] of [
      [{ status: false }, 'disabled'],
      [{ suspended: true }, 'suspended'],
    ] as const) {
      const d = deps(state);
      expect((await call(d, `Bearer ${KEY}`, 'read')).id).toBe(7n);
      for (const use of ['write', 'ai'] as const) {
        await expect(call(d, `Bearer ${KEY}`, use)).rejects.toMatchObject({
          code: 'forbidden',
          message: expect.stringContaining(word) as unknown,
        });
      }
    }
  });

  it('refuses writes and AI calls below a disabled or suspended ancestor, saying so, and keeps reads', async () => {
    for (const [off, word] of [
      [{ disabled: true }, 'disabled'],
      [{ suspended: true }, 'suspended'],
    ] as const) {
      const d = deps({ inherited: accounts.Inherited.fromPartial(off) });
      expect((await call(d, `Bearer ${KEY}`, 'read')).id).toBe(7n);
      for (const use of ['write', 'ai'] as const) {
        await expect(call(d, `Bearer ${KEY}`, use)).rejects.toMatchObject({
          code: 'forbidden',
          message: expect.stringContaining(`an account above this one is ${word}`) as unknown,
        });
      }
    }
  });

  it('looks an unknown key up once, holds an address that keeps failing, and never holds back a working key', async () => {
    const d = deps({}, 5);
    // Five failures, then the held address's one lookup a second.
    for (let i = 0; i < 6; i += 1) {
      await expect(call(d, 'Bearer sk-gw-not-a-key-of-anyone-at-all')).rejects.toMatchObject({
        code: 'unauthenticated',
      });
    }
    expect(d.lookups).toHaveLength(1);
    await expect(call(d, 'Bearer sk-gw-not-a-key-of-anyone-at-all')).rejects.toMatchObject({
      code: 'rate_limited',
    });
    // The key has authenticated (from elsewhere): the held address is no lockout for it.
    expect((await call(d, `Bearer ${KEY}`, 'read', '198.51.100.1')).id).toBe(7n);
    expect((await call(d, `Bearer ${KEY}`)).id).toBe(7n);
    await expect(call(d, 'Bearer sk-gw-not-a-key-of-anyone-at-all')).rejects.toMatchObject({
      code: 'rate_limited',
    });
  });

  it("runs the caller's own check after the account's, and a key it refuses is not recorded as used", async () => {
    const d = deps({ status: false });
    const refuseAll = () => {
      throw new Error('not this caller');
    };
    // The account's state is checked first: the caller's check sees only an active account.
    await expect(
      authenticateKey(d, { authorization: `Bearer ${KEY}`, client: CLIENT }, 'write', refuseAll),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      authenticateKey(d, { authorization: `Bearer ${KEY}`, client: CLIENT }, 'read', refuseAll),
    ).rejects.toThrow('not this caller');
    await d.keyUses.flush();
    expect(d.recorded).toEqual([]);
    const seen: bigint[] = [];
    await authenticateKey(d, { authorization: `Bearer ${KEY}`, client: CLIENT }, 'read', (account) => {
      seen.push(account.id);
    });
    await d.keyUses.flush();
    expect([seen, d.recorded]).toEqual([[7n], [7n]]);
  });
});

describe('clientOf', () => {
  const PROXY = '10.0.0.2';
  const request = (peer: string, headers: Record<string, string>) =>
    ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;
  const settings = (trusted: string) => ({
    trustedProxies: AddressList.parse(trusted) as AddressList,
    internalToken: INTERNAL_TOKEN,
  });

  it('is the socket peer, or the client behind trusted proxies only', () => {
    const forwarded = { 'x-forwarded-for': `${CLIENT}, 198.51.100.7` };
    expect(clientOf(request(PROXY, forwarded), settings(''))).toBe(PROXY);
    expect(clientOf(request(PROXY, forwarded), settings(PROXY))).toBe('198.51.100.7');
    expect(clientOf(request(PROXY, forwarded), settings(`${PROXY}, 198.51.100.0/24`))).toBe(CLIENT);
    expect(clientOf(request('::ffff:198.51.100.7', {}), settings(''))).toBe('198.51.100.7');
  });

  it('is the client a gateway process names beside the internal token, and ignores the name without it', () => {
    const named = { [CLIENT_ADDRESS_HEADER]: CLIENT };
    expect(
      clientOf(request(PROXY, { ...named, [INTERNAL_TOKEN_HEADER]: INTERNAL_TOKEN }), settings('')),
    ).toBe(CLIENT);
    expect(clientOf(request(PROXY, named), settings(''))).toBe(PROXY);
    expect(
      clientOf(request(PROXY, { ...named, [INTERNAL_TOKEN_HEADER]: `${INTERNAL_TOKEN}x` }), settings('')),
    ).toBe(PROXY);
    // A trusted proxy's X-Forwarded-For does not stand in for the token.
    expect(clientOf(request(PROXY, { ...named, 'x-forwarded-for': '198.51.100.7' }), settings(PROXY))).toBe(
      '198.51.100.7',
    );
  });
});
