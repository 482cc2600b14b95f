import { describe, expect, it } from 'vitest';
import { crossedFloor } from './debit.js';

describe('crossedFloor', () => {
  it('is true only for the debit that takes the balance from above the floor to at or below it', () => {
    expect(crossedFloor(0n, 5n, 0n)).toBe(true);
    expect(crossedFloor(-3n, 5n, 0n)).toBe(true);
    expect(crossedFloor(1n, 5n, 0n)).toBe(false);
    expect(crossedFloor(-3n, 2n, 0n)).toBe(false);
    expect(crossedFloor(10n, 5n, 10n)).toBe(true);
    expect(crossedFloor(10n, 0n, 10n)).toBe(false);
  });
});
