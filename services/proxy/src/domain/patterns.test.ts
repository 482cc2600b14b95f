import { describe, expect, it } from 'vitest';
import { isLevelAllowed, isModelAllowed, matchesPattern, mostSpecific, parsePairs } from './patterns.js';

describe('matchesPattern', () => {
  it('matches exact names and * wildcards anywhere', () => {
    expect(matchesPattern('gpt-4o', 'gpt-4o')).toBe(true);
    expect(matchesPattern('gpt-4o', 'gpt-4o-mini')).toBe(false);
    expect(matchesPattern('gpt-4*', 'gpt-4o-mini')).toBe(true);
    expect(matchesPattern('*-mini', 'gpt-4o-mini')).toBe(true);
    expect(matchesPattern('*', '')).toBe(true);
    expect(matchesPattern('a.b*', 'axb')).toBe(false);
  });
});

describe('mostSpecific', () => {
  const entries = [
    ['*', 'any'],
    ['gpt-*', 'gpt'],
    ['gpt-4o*', 'gpt-4o family'],
    ['gpt-4o', 'exact'],
  ] as const;

  it('prefers an exact name, then the longest literal part', () => {
    expect(mostSpecific(entries, 'gpt-4o')).toBe('exact');
    expect(mostSpecific(entries, 'gpt-4o-mini')).toBe('gpt-4o family');
    expect(mostSpecific(entries, 'gpt-3.5')).toBe('gpt');
    expect(mostSpecific(entries, 'claude')).toBe('any');
  });

  it('keeps the first of equally specific patterns and answers undefined without a match', () => {
    expect(
      mostSpecific(
        [
          ['a*', 1],
          ['*a', 2],
        ],
        'aa',
      ),
    ).toBe(1);
    expect(mostSpecific([['b*', 1]], 'a')).toBeUndefined();
  });
});

describe('parsePairs', () => {
  it('trims entries and skips malformed ones', () => {
    expect(parsePairs(' a = b ,c=d,, =x, y=, bad ')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });
});

describe('allowlists', () => {
  it('allows every model and Level when empty', () => {
    expect(isModelAllowed('', 'anything')).toBe(true);
    expect(isLevelAllowed('', 7)).toBe(true);
  });

  it('checks space-separated model patterns and comma or space separated Levels', () => {
    expect(isModelAllowed('gpt-4* claude-3', 'gpt-4o')).toBe(true);
    expect(isModelAllowed('gpt-4* claude-3', 'claude-3-opus')).toBe(false);
    expect(isLevelAllowed('1,2 3', 3)).toBe(true);
    expect(isLevelAllowed('1,2', 3)).toBe(false);
  });
});
