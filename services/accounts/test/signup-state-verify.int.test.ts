import { usd } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { completeSignup } from '../src/domain/complete-signup.js';
import { MINUTE, SECOND, useSignupState } from './signup-state-fixture.js';

describe('signup state: verifying a code and activating a token', () => {
  const signup = useSignupState();
  const { advance, balance, fresh, lastCode, refusal, request, welcomes, wrongCode } = signup;

  it('creates the account with the right code at 9:59, funded exactly from the signup owner', async () => {
    signup.deps.signupPolicy.owner = 'signupdesk';
    const before = await balance(signup.desk.id);
    const email = fresh();
    await request(email);
    advance(10 * MINUTE - SECOND);
    const done = await completeSignup(signup.deps, {
      email,
      code: lastCode(email).code,
      ipAddress: '203.0.113.1',
    });
    expect(done.email).toBe(email);
    expect(await balance(signup.desk.id)).toBe(before - usd(2));
    expect(await balance(done.accountId)).toBe(usd(2));
    const created = await signup.deps.store.accounts.findById(done.accountId);
    expect(created).toMatchObject({ parentId: signup.desk.id, email, name: done.name });
    expect(welcomes()).toEqual([expect.objectContaining({ accountId: done.accountId })]);
    expect(welcomes()[0]?.secretKey).toMatch(/^sk-/);
  });

  it('refuses a code at 10:00 and a token at 10:01, creating nothing', async () => {
    const email = fresh();
    await request(email);
    const { code, token } = lastCode(email);
    advance(10 * MINUTE);
    expect(await refusal(completeSignup(signup.deps, { email, code, ipAddress: '' }))).toEqual({
      code: 'invalid_request',
      message: 'Invalid or expired verification code',
    });
    advance(SECOND);
    expect((await refusal(completeSignup(signup.deps, { token, ipAddress: '' }))).code).toBe(
      'invalid_request',
    );
    expect(welcomes()).toEqual([]);
    expect(
      await signup.deps.store.accounts.findOne({ by: 'email', emailKey: email, scope: signup.root.id }, '.'),
    ).toBeUndefined();
  });

  it('activates by token at 9:59, once; the code of the same signup is then used up too', async () => {
    const email = fresh();
    await request(email);
    const { code, token } = lastCode(email);
    advance(10 * MINUTE - SECOND);
    const done = await completeSignup(signup.deps, { token, ipAddress: '' });
    expect(done.email).toBe(email);
    expect((await refusal(completeSignup(signup.deps, { token, ipAddress: '' }))).code).toBe(
      'invalid_request',
    );
    expect((await refusal(completeSignup(signup.deps, { email, code, ipAddress: '' }))).code).toBe(
      'invalid_request',
    );
    expect(welcomes()).toHaveLength(1);
  });

  it('kills a code after five wrong ones: the right code is refused, a new code works', async () => {
    const email = fresh();
    await request(email);
    const { code } = lastCode(email);
    for (let i = 1; i <= 5; i++) {
      const answer = await refusal(
        completeSignup(signup.deps, { email, code: wrongCode(code), ipAddress: '' }),
      );
      expect(answer.message).toBe(
        i < 5
          ? 'Wrong verification code'
          : 'Too many wrong codes: this code is no longer valid, request a new one',
      );
    }
    expect((await refusal(completeSignup(signup.deps, { email, code, ipAddress: '' }))).message).toMatch(
      /no longer valid/,
    );
    advance(2 * MINUTE);
    await request(email);
    const done = await completeSignup(signup.deps, { email, code: lastCode(email).code, ipAddress: '' });
    expect(done.email).toBe(email);
  });

  it('caps wrong codes per address per day across codes', async () => {
    const email = fresh();
    for (let round = 0; round < 4; round++) {
      await request(email);
      const { code } = lastCode(email);
      for (let i = 0; i < 5; i++) {
        await refusal(completeSignup(signup.deps, { email, code: wrongCode(code), ipAddress: '' }));
      }
      advance(2 * MINUTE);
    }
    await request(email);
    expect(
      await refusal(completeSignup(signup.deps, { email, code: lastCode(email).code, ipAddress: '' })),
    ).toEqual({
      code: 'rate_limited',
      message: 'Too many failed verification attempts for this address today',
    });
  });

  it('creates exactly one account when the right code is verified twice at once', async () => {
    const email = fresh();
    await request(email);
    const { code } = lastCode(email);
    const answers = await Promise.allSettled(
      Array.from({ length: 5 }, () => completeSignup(signup.deps, { email, code, ipAddress: '' })),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    expect(welcomes()).toHaveLength(1);
  });
});
