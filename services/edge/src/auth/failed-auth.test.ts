import { describe, expect, it } from 'vitest';
import { FailedAuthLimiter } from './failed-auth.js';

describe('FailedAuthLimiter', () => {
  it('lets an address fail up to the limit in a minute, then makes it wait out the minute', () => {
    let now = 1_000_000;
    const limiter = new FailedAuthLimiter(3, () => now);
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.waitFor('203.0.113.9')).toBe(0);
      limiter.note('203.0.113.9');
    }
    now += 10_000;
    expect(limiter.waitFor('203.0.113.9')).toBe(50_000);
    expect(limiter.waitFor('198.51.100.1')).toBe(0);
    now += 50_000;
    expect(limiter.waitFor('203.0.113.9')).toBe(0);
  });
});
