import { describe, expect, it } from 'vitest';
import { sleepLength } from './sleep-key.js';

describe('sleep schedule', () => {
  it('grows 5, 15, then 30 minutes', () => {
    expect([1, 2, 3, 4, 9].map(sleepLength)).toEqual([300_000, 900_000, 1_800_000, 1_800_000, 1_800_000]);
  });
});
