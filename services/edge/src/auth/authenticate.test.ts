import { createLogger, hashApiKey } from '@gw/kit';
import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { AuthCache } from './auth-cache.js';
import { resolveCaller } from './authenticate.js';
import { KeyUseRecorder } from './key-use.js';

const KEY = 'sk-gw-a-key-for-the-bearer-scheme-tests';

function deps() {
  const account = accounts.Account.fromPartial({ id: 7n, status: true });
  return {
    cache: new AuthCache(async (hash) => (hash === hashApiKey(KEY) ? account : undefined), 30_000),
    keyUses: new KeyUseRecorder(async () => undefined, createLogger('test', 'silent'), 60_000),
  };
}

describe('resolveCaller', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])(
    'accepts the %s scheme (RFC 9110: case-insensitive)',
    async (scheme) => {
      expect((await resolveCaller(deps(), `${scheme} ${KEY}`, 'user')).id).toBe(7n);
    },
  );

  it.each([undefined, '', KEY, `Basic ${KEY}`, `Bearer  ${KEY}`, 'Bearer '])(
    'refuses a missing or malformed Authorization (%s) with 401',
    async (authorization) => {
      await expect(resolveCaller(deps(), authorization, 'user')).rejects.toMatchObject({
        code: 'unauthenticated',
      });
    },
  );
});
