import { describe, expect, it } from 'vitest';
import { nameProblem } from './names.js';
import {
  generateCode,
  generateToken,
  ipBucket,
  isCodeShaped,
  isTokenShaped,
  normaliseSignupEmail,
  signupHasher,
  signupName,
  utcDay,
} from './signup-rules.js';

describe('normaliseSignupEmail', () => {
  it('trims, lower-cases and writes an international domain in ASCII, so variants share one bucket', () => {
    expect(normaliseSignupEmail(' Alice@Example.COM ')).toBe('alice@example.com');
    expect(normaliseSignupEmail('a@BÜCHER.example')).toBe('a@xn--bcher-kva.example');
    expect(normaliseSignupEmail('a@xn--bcher-kva.example')).toBe('a@xn--bcher-kva.example');
    // The DNS root dot names the same domain: one bucket, one account.
    expect(normaliseSignupEmail('newbie@example.org.')).toBe('newbie@example.org');
  });

  it('refuses what is not an address', () => {
    for (const raw of ['', 'alice', '@example.com', 'a@b', 'a b@example.com', 'a@exa mple.com', 'a@[::1]']) {
      expect(() => normaliseSignupEmail(raw), raw).toThrow('Email must be a valid address');
    }
  });
});

describe('ipBucket', () => {
  it('counts an IPv4 client by its address and an IPv6 client by its /64', () => {
    expect(ipBucket('203.0.113.9')).toBe('203.0.113.9');
    expect(ipBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(ipBucket('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(ipBucket('2001:db8:1:2::9'));
    expect(ipBucket('2001:db8:1:3::9')).not.toBe(ipBucket('2001:db8:1:2::9'));
    expect(ipBucket('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(ipBucket('')).toBe('unknown');
  });
});

describe('signupName', () => {
  it('takes the local part when it is a valid name', () => {
    expect(signupName('alice.smith@example.com', 0)).toBe('alice.smith');
  });

  it('puts "user" in front of a local part that is too short or has no letter', () => {
    expect(signupName('bo@example.com', 0)).toBe('userbo');
    expect(signupName('1234@example.com', 0)).toBe('user1234');
    expect(signupName('+++@example.com', 0)).toBe('user');
  });

  it('adds a random suffix on later attempts and always gives a valid name', () => {
    const first = signupName('alice@example.com', 1);
    expect(first).toMatch(/^alice-[0-9a-f]{8}$/);
    expect(signupName('alice@example.com', 1)).not.toBe(first);
    for (const email of [
      'x@example.com',
      `${'a'.repeat(64)}@example.com`,
      '.hidden@example.com',
      'ünï@example.com',
    ]) {
      expect(nameProblem(signupName(email, 0)), email).toBeUndefined();
      expect(nameProblem(signupName(email, 3)), email).toBeUndefined();
    }
  });
});

describe('codes, tokens and their hashes', () => {
  it('makes 6-digit codes and 256-bit tokens that are recognised by their shape', () => {
    for (let i = 0; i < 50; i++) {
      expect(isCodeShaped(generateCode())).toBe(true);
      expect(isTokenShaped(generateToken())).toBe(true);
    }
    expect(isCodeShaped('12345')).toBe(false);
    expect(isCodeShaped('12345a')).toBe(false);
    expect(isTokenShaped('short')).toBe(false);
  });

  it('hashes with a key: the same value and key agree, another key does not, the value is not in it', () => {
    const key = 'ab'.repeat(32);
    const hash = signupHasher(key);
    expect(hash('code:a@example.com:123456')).toBe(signupHasher(key)('code:a@example.com:123456'));
    expect(hash('code:a@example.com:123456')).not.toBe(
      signupHasher('cd'.repeat(32))('code:a@example.com:123456'),
    );
    expect(hash('code:a@example.com:123456')).not.toContain('123456');
  });

  it('counts days in UTC', () => {
    expect(utcDay(new Date('2030-01-01T23:59:59.999Z'))).toBe('2030-01-01');
    expect(utcDay(new Date('2030-01-02T00:00:00Z'))).toBe('2030-01-02');
  });
});
