import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { completeSignup } from '../src/domain/complete-signup.js';
import { requestSignupCode } from '../src/domain/request-signup-code.js';
import type { SignupDeps } from '../src/domain/ports/signup.js';
import { RedisSignupStore } from '../src/store/redis-signup-store.js';
import { useSignupState } from './signup-state-fixture.js';

describe('signup state: what Redis holds, and when it cannot be reached or the mail not queued', () => {
  const signup = useSignupState();
  const { fresh, lastCode, prefix, refusal, request } = signup;

  it('undoes the reservation when the mail cannot be queued: nothing stored, a retry is not made to wait', async () => {
    const email = fresh();
    signup.mailWorks = false;
    expect(await refusal(request(email))).toEqual({
      code: 'unavailable',
      message: 'Sign-up is temporarily unavailable',
    });
    expect(await signup.redis.exists(`${prefix}pending:${email}`)).toBe(0);
    signup.mailWorks = true;
    await request(email);
    expect(signup.sent).toHaveLength(1);
  });

  it('fails closed when Redis cannot be reached: unavailable, no mail, no account', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    down.on('error', () => undefined); // nothing listens on port 1: that is the point
    const offline: SignupDeps = { ...signup.deps, signupStore: new RedisSignupStore(down, prefix) };
    try {
      const email = fresh();
      expect((await refusal(requestSignupCode(offline, { email, ipAddress: '' }))).code).toBe('unavailable');
      expect((await refusal(completeSignup(offline, { email, code: '123456', ipAddress: '' }))).code).toBe(
        'unavailable',
      );
      expect(signup.sent).toEqual([]);
      expect(
        await signup.deps.store.accounts.findOne(
          { by: 'email', emailKey: email, scope: signup.root.id },
          '.',
        ),
      ).toBeUndefined();
    } finally {
      down.disconnect();
    }
  });

  it('stores codes and tokens only as keyed hashes', async () => {
    const email = fresh();
    await request(email);
    const { code, token } = lastCode(email);
    const dump: string[] = [];
    for (const key of await signup.redis.keys(`${prefix}*`)) {
      dump.push(
        key,
        JSON.stringify(
          (await signup.redis.type(key)) === 'hash'
            ? await signup.redis.hgetall(key)
            : await signup.redis.get(key),
        ),
      );
    }
    const text = dump.join('\n');
    expect(text).toContain(email);
    expect(text).not.toContain(code);
    expect(text).not.toContain(token);
  });
});
