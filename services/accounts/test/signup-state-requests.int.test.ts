import { describe, expect, it } from 'vitest';
import { MINUTE, SECOND, useSignupState } from './signup-state-fixture.js';

describe('signup state: requesting a code (per-address wait, per-IP and daily caps)', () => {
  const signup = useSignupState();
  const { advance, fresh, limits, refusal, request } = signup;

  it('sends a code, then refuses another for the address at 1:59 and sends one at 2:00', async () => {
    const email = fresh();
    await request(email);
    advance(2 * MINUTE - SECOND);
    expect(await refusal(request(email))).toEqual({
      code: 'rate_limited',
      message: 'Please wait before requesting another verification code',
    });
    expect(signup.sent).toHaveLength(1);
    advance(SECOND);
    await request(email);
    expect(signup.sent).toHaveLength(2);
  });

  it('counts every spelling of one address in one bucket', async () => {
    const local = `variant${Date.now().toString(36)}`;
    await request(`${local}@bücher.example`);
    for (const variant of [`${local.toUpperCase()}@XN--BCHER-KVA.EXAMPLE`, `  ${local}@Bücher.Example  `]) {
      expect((await refusal(request(variant))).code).toBe('rate_limited');
    }
    expect(signup.sent.map((entry) => entry.email)).toEqual([`${local}@xn--bcher-kva.example`]);
  });

  it('keeps the per-address wait with SAFE_ENABLE off, but not the per-IP cap', async () => {
    limits.safe = false;
    const email = fresh();
    await request(email);
    expect((await refusal(request(email))).code).toBe('rate_limited');
    for (let i = 0; i < 12; i++) {
      await request(fresh());
    }
    expect(signup.sent).toHaveLength(13);
  });

  it('sends 10 codes a day to one client and refuses the 11th; another client is not affected', async () => {
    for (let i = 0; i < 10; i++) {
      await request(fresh(), '198.51.100.7');
    }
    expect(await refusal(request(fresh(), '198.51.100.7'))).toEqual({
      code: 'rate_limited',
      message: 'Too many verification codes requested from this IP today',
    });
    await request(fresh(), '198.51.100.8');
    expect(signup.sent).toHaveLength(11);
    // The next UTC day starts a new count.
    advance(24 * 60 * MINUTE);
    await request(fresh(), '198.51.100.7');
    expect(signup.sent).toHaveLength(12);
  });

  it('counts an IPv6 /64 as one client', async () => {
    for (let i = 0; i < 10; i++) {
      await request(fresh(), `2001:db8:7:7::${i + 1}`);
    }
    expect((await refusal(request(fresh(), '2001:db8:7:7:ffff::1'))).message).toBe(
      'Too many verification codes requested from this IP today',
    );
    await request(fresh(), '2001:db8:7:8::1');
  });

  it('lets exactly the cap through when 40 addresses ask at once from one client', async () => {
    const answers = await Promise.allSettled(
      Array.from({ length: 40 }, () => request(fresh(), '192.0.2.40')),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(10);
    expect(signup.sent).toHaveLength(10);
  });

  it('refuses past the daily cap of the whole gateway', async () => {
    limits.dailyCap = 3;
    try {
      for (let i = 0; i < 3; i++) {
        await request(fresh(), `192.0.2.${i + 1}`);
      }
      expect(await refusal(request(fresh(), '192.0.2.99'))).toEqual({
        code: 'rate_limited',
        message: 'Too many verification codes requested today',
      });
    } finally {
      limits.dailyCap = 1000;
    }
  });

  it('refuses a registered address, in any spelling', async () => {
    expect(await refusal(request(' DESK@Example.com'))).toEqual({
      code: 'conflict',
      message: 'Email already registered',
    });
    expect(signup.sent).toEqual([]);
  });
});
