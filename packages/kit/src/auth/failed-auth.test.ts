import { describe, expect, it } from 'vitest';
import { FailedAuthLimiter } from './failed-auth.js';

const GOOD = 'a'.repeat(64);
const BAD = 'b'.repeat(64);

describe('FailedAuthLimiter', () => {
  it('lets an address fail up to the limit in a minute, then makes it wait out the minute', () => {
    let now = 1_000_000;
    const limiter = new FailedAuthLimiter(3, () => now);
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.waitFor('203.0.113.9', BAD)).toBe(0);
      limiter.note('203.0.113.9');
    }
    now += 10_000;
    // The one lookup a second a held address still gets, then the wait.
    expect(limiter.waitFor('203.0.113.9', BAD)).toBe(0);
    expect(limiter.waitFor('203.0.113.9', BAD)).toBe(50_000);
    expect(limiter.waitFor('198.51.100.1', BAD)).toBe(0);
    now += 50_000;
    expect(limiter.waitFor('203.0.113.9', BAD)).toBe(0);
  });

  it('never holds back a key that authenticated, and looks one other key up a second from a held address', () => {
    let now = 1_000_000;
    const limiter = new FailedAuthLimiter(2, () => now);
    limiter.succeeded(GOOD);
    limiter.note('203.0.113.9');
    limiter.note('203.0.113.9');
    expect(limiter.waitFor('203.0.113.9', GOOD)).toBe(0);
    // A key never seen to work: one lookup a second from the held address, the rest wait.
    expect(limiter.waitFor('203.0.113.9', BAD)).toBe(0);
    expect(limiter.waitFor('203.0.113.9', BAD)).toBeGreaterThan(0);
    now += 1_000;
    expect(limiter.waitFor('203.0.113.9', BAD)).toBe(0);
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4', () => {
    const limiter = new FailedAuthLimiter(2, () => 1_000_000);
    limiter.note('2001:db8:1:2::1');
    limiter.note('2001:db8:1:2:ffff::9');
    expect(limiter.waitFor('2001:db8:1:2::abcd', BAD)).toBe(0);
    expect(limiter.waitFor('2001:db8:1:2::abcd', BAD)).toBeGreaterThan(0);
    expect(limiter.waitFor('2001:db8:1:3::1', BAD)).toBe(0);
    limiter.note('::ffff:203.0.113.9');
    limiter.note('203.0.113.9');
    limiter.waitFor('203.0.113.9', BAD);
    expect(limiter.waitFor('203.0.113.9', BAD)).toBeGreaterThan(0);
  });
});
