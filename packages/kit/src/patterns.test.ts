import { describe, expect, it } from 'vitest';
import {
  formatMapper,
  matchesPattern,
  MAX_PATTERN_WILDCARDS,
  parseMapper,
  PatternTable,
  splitMapperEntries,
  splitPatternList,
  tooManyWildcards,
} from './patterns.js';

describe('matchesPattern', () => {
  it.each([
    ['gpt-4o', 'gpt-4o', true],
    ['gpt-4o', 'gpt-4o-mini', false],
    ['gpt-4o*', 'gpt-4o-mini', true],
    ['*', 'anything', true],
    ['claude-*-sonnet', 'claude-3-5-sonnet', true],
    ['gpt.4', 'gpt-4', false],
    ['a+b*', 'a+bc', true],
    ['*-*-*', 'a-b-c', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['*ab*ab*', 'abab', true],
    ['**', '', true],
    ['a**a', 'a', false],
    ['x*y', 'xy', true],
  ])('%s against %s is %s', (pattern, name, expected) => {
    expect(matchesPattern(pattern, name)).toBe(expected);
  });
});

describe('PatternTable', () => {
  it('prefers an exact name, then the most literal characters, then the first written', () => {
    const table = new PatternTable([
      ['*', 'any'],
      ['gpt-*', 'gpt'],
      ['gpt-4o*', 'gpt-4o family'],
      ['gpt-4o-mini', 'exact'],
      ['gpt-4*', 'gpt-4 first'],
      ['gpt-4?', 'no wildcard, exact only'],
    ]);
    expect(table.lookup('gpt-4o-mini')).toBe('exact');
    expect(table.lookup('gpt-4o-2024')).toBe('gpt-4o family');
    expect(table.lookup('gpt-4-turbo')).toBe('gpt-4 first');
    expect(table.lookup('gpt-3.5')).toBe('gpt');
    expect(table.lookup('claude')).toBe('any');
    expect(table.matchesOf('gpt-4o-mini').map((match) => match.pattern)).toEqual([
      'gpt-4o-mini',
      'gpt-4o*',
      'gpt-4*',
      'gpt-*',
      '*',
    ]);
    expect(new PatternTable([]).lookup('x')).toBeUndefined();
  });

  it('keeps the first of two equally specific patterns and the first of duplicate names', () => {
    const table = new PatternTable([
      ['a*', 'first'],
      ['*a', 'second'],
      ['x', 'one'],
      ['x', 'two'],
    ]);
    expect(table.lookup('aa')).toBe('first');
    expect(table.lookup('x')).toBe('one');
  });

  it('answers whether any pattern matches, for allowlists', () => {
    const table = new PatternTable(splitPatternList('gpt-4o*, text-embedding-3-small').map((p) => [p, true]));
    expect(table.matches('gpt-4o-mini')).toBe(true);
    expect(table.matches('text-embedding-3-small')).toBe(true);
    expect(table.matches('text-embedding-3-large')).toBe(false);
  });
});

describe('the mapper grammar', () => {
  it('separates entries by commas or line breaks and trims both sides', () => {
    expect(parseMapper(' gpt-4*=gpt-4o ,\n o1 = o1-mini\r\n,x=y')).toEqual([
      ['gpt-4*', 'gpt-4o'],
      ['o1', 'o1-mini'],
      ['x', 'y'],
    ]);
  });

  it('writes pairs back in the form it reads', () => {
    const pairs: Array<[string, string]> = [
      ['gpt-4*', 'gpt-4o'],
      ['o1', 'o1-mini'],
    ];
    expect(formatMapper(pairs)).toBe('gpt-4*=gpt-4o,o1=o1-mini');
    expect(parseMapper(formatMapper(pairs))).toEqual(pairs);
  });

  it('skips entries without a pattern or a value; splitMapperEntries keeps them for validation', () => {
    expect(parseMapper('=a,b=,c,,d=e')).toEqual([['d', 'e']]);
    expect(splitMapperEntries('=a,b=,c,,d=e')).toEqual(['=a', 'b=', 'c', 'd=e']);
  });
});

describe('patterns that cannot stall a process', () => {
  // Each of these takes a backtracking regular expression hours: every `*` may end anywhere.
  const name = 'a'.repeat(20_000);
  const adversarial = [
    `${'*a'.repeat(MAX_PATTERN_WILDCARDS)}b`,
    `${'a*'.repeat(MAX_PATTERN_WILDCARDS)}b`,
    `*${'aa*'.repeat(MAX_PATTERN_WILDCARDS - 1)}c`,
    `${'*a'.repeat(40)}b`,
  ];

  it('matches adversarial patterns against long names without backtracking', () => {
    const table = new PatternTable(adversarial.map((pattern) => [pattern, pattern] as const));
    for (let i = 0; i < 200; i += 1) {
      expect(table.lookup(name)).toBeUndefined();
      expect(table.matches(`${name}!`)).toBe(false);
    }
    for (const pattern of adversarial) {
      expect(matchesPattern(pattern, name)).toBe(false);
      expect(matchesPattern(pattern, `${name}b`)).toBe(pattern.endsWith('b'));
    }
  });

  it('counts the wildcards of a pattern against the bound', () => {
    expect(tooManyWildcards('*'.repeat(MAX_PATTERN_WILDCARDS))).toBe(false);
    expect(tooManyWildcards('*'.repeat(MAX_PATTERN_WILDCARDS + 1))).toBe(true);
    expect(tooManyWildcards('a*'.repeat(MAX_PATTERN_WILDCARDS + 1))).toBe(true);
    expect(tooManyWildcards('gpt-4o')).toBe(false);
  });
});
