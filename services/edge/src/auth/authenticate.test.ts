import { AddressList, createLogger, hashApiKey } from '@gw/kit';
import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { AuthCache } from './auth-cache.js';
import { resolveCaller, type Use } from './authenticate.js';
import { FailedAuthLimiter } from './failed-auth.js';
import { KeyUseRecorder } from './key-use.js';

const KEY = 'sk-gw-a-key-for-the-bearer-scheme-tests';
const CLIENT = '203.0.113.9';

function deps(account: Partial<accounts.Account> = {}, failuresPerMinute = 100) {
  const stored = accounts.Account.fromPartial({ id: 7n, status: true, ...account });
  const lookups: string[] = [];
  return {
    lookups,
    cache: new AuthCache(
      async (hash) => {
        lookups.push(hash);
        return hash === hashApiKey(KEY) ? stored : undefined;
      },
      30_000,
      Date.now,
      5_000,
    ),
    keyUses: new KeyUseRecorder(async () => undefined, createLogger('test', 'silent'), 60_000),
    failedAuth: new FailedAuthLimiter(failuresPerMinute),
    trustedProxies: AddressList.parse('') as AddressList,
  };
}

const call = (
  d: ReturnType<typeof deps>,
  authorization: string | undefined,
  use: Use = 'read',
  client = CLIENT,
) => resolveCaller(d, { authorization, client }, 'user', use);

describe('resolveCaller', () => {
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
    ) => resolveCaller(d, { authorization, apiKey, client: CLIENT }, 'user', use);
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
});
