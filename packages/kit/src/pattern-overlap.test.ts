import { describe, expect, it } from 'vitest';
import { patternsOverlap } from './pattern-overlap.js';

describe('patternsOverlap', () => {
  it.each([
    ['gpt-4o-mini', 'gpt-4o-mini*', true],
    ['gpt-4o-mini*', 'gpt-4o*', true],
    ['gpt-4o*', '*-mini', true],
    ['*', 'anything', true],
    ['a*b', '*c*', true],
    ['gpt-4o', 'gpt-4o-mini', false],
    ['gpt-4o-mini*', 'o3*', false],
    ['a*b', 'a*c', false],
    ['*x', 'y', false],
  ])('%s and %s: %s', (a, b, overlap) => {
    expect(patternsOverlap(a, b)).toBe(overlap);
    expect(patternsOverlap(b, a)).toBe(overlap);
  });

  it('answers adversarial patterns at once', () => {
    const stars = `${'a*'.repeat(200)}b`;
    expect(patternsOverlap(stars, `${'a'.repeat(400)}c`)).toBe(false);
    expect(patternsOverlap(stars, `*${'a*'.repeat(199)}c`)).toBe(false);
  });
});
