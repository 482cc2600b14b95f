import { describe, expect, it } from 'vitest';
import { add, exact, toNanoHalfUp, ZERO } from './exact.js';

describe('exact', () => {
  it('reads a number as the decimal it prints as, the same each time it is read again', () => {
    expect(exact(0.1)).toEqual({ units: 1n, scale: 1 });
    expect(exact(0.1)).toEqual({ units: 1n, scale: 1 });
    expect(exact(2.5e-7)).toEqual({ units: 25n, scale: 8 });
    expect(exact(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(exact(-0)).toEqual({ units: 0n, scale: 0 });
  });

  it('refuses a negative or non-finite number every time, never remembering it', () => {
    for (let round = 0; round < 2; round += 1) {
      expect(() => exact(-1)).toThrow(RangeError);
      expect(() => exact(Number.NaN)).toThrow(RangeError);
      expect(() => exact(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    }
  });

  it('keeps reading correctly past the bound of what it remembers', () => {
    for (let index = 0; index < 10_000; index += 1) {
      exact(index / 1000);
    }
    expect(exact(0.001)).toEqual({ units: 1n, scale: 3 });
    expect(exact(9.999)).toEqual({ units: 9999n, scale: 3 });
    expect(exact(1234.5678)).toEqual({ units: 12345678n, scale: 4 });
  });

  it('adds exactly across scales, zero on either side included, and rounds to nano-USD half up', () => {
    expect(add(exact(0.1), exact(0.02))).toEqual({ units: 12n, scale: 2 });
    expect(add(ZERO, exact(0.25))).toEqual(exact(0.25));
    expect(add(exact(0.25), ZERO)).toEqual(exact(0.25));
    expect(toNanoHalfUp(add(exact(1.5), exact(2.5e-10)))).toBe(1_500_000_000n);
    expect(toNanoHalfUp(add(exact(1.5), exact(5e-10)))).toBe(1_500_000_001n);
    expect(toNanoHalfUp(exact(3))).toBe(3_000_000_000n);
  });
});
