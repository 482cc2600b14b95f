import { AppError } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { checkTarget, checkText, describeTarget, lifetimeDays, reachingPaths } from './news-rules.js';

describe('checkText', () => {
  it('accepts a title of 100 characters and content of 1000, counted in code points', () => {
    expect(checkText('t'.repeat(100), 'c'.repeat(1000)).title).toHaveLength(100);
    expect(checkText('é'.repeat(100), '😀'.repeat(1000)).content).toBe('😀'.repeat(1000));
  });

  it('refuses a title of 101 characters, content of 1001 and empty text', () => {
    for (const [title, content, field] of [
      ['t'.repeat(101), 'c', 'title'],
      ['t', 'c'.repeat(1001), 'content'],
      ['  ', 'c', 'title'],
      ['t', ' ', 'content'],
    ] as const) {
      try {
        checkText(title, content);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).details).toEqual({ field });
      }
    }
  });
});

describe('lifetimeDays', () => {
  it('defaults to 7 days for system news and 32 for targeted news', () => {
    expect(lifetimeDays({ scope: 'system' }, undefined)).toBe(7);
    expect(lifetimeDays({ scope: 'user', accountId: 5n }, undefined)).toBe(32);
    expect(lifetimeDays({ scope: 'dna', dna: '.1.' }, undefined)).toBe(32);
    expect(lifetimeDays({ scope: 'system' }, 1)).toBe(1);
  });

  it('refuses zero, negative, fractional and absurd lifetimes', () => {
    for (const days of [0, -1, 1.5, 3651]) {
      expect(() => lifetimeDays({ scope: 'system' }, days)).toThrow(/days/);
    }
  });
});

describe('reachingPaths', () => {
  it('lists the path of the account and of each ancestor', () => {
    expect(reachingPaths('.1.5.9.')).toEqual(['.1.', '.1.5.', '.1.5.9.']);
    expect(reachingPaths('.1.')).toEqual(['.1.']);
  });

  it('never lets one tree reach a sibling whose id shares a prefix', () => {
    expect(reachingPaths('.1.50.')).not.toContain('.1.5.');
  });

  it('gives nothing for a malformed path', () => {
    expect(reachingPaths('')).toEqual([]);
    expect(reachingPaths('1.5')).toEqual([]);
  });
});

describe('checkTarget', () => {
  it('refuses a DNA target that is not a path and a user target without an account', () => {
    expect(() => checkTarget({ scope: 'dna', dna: '.1.x.' })).toThrow(/DNA/);
    expect(() => checkTarget({ scope: 'user', accountId: 0n })).toThrow(/account/);
  });
});

describe('describeTarget', () => {
  it('names each scope as the operation log shows it', () => {
    expect(describeTarget({ scope: 'system' })).toBe('system news');
    expect(describeTarget({ scope: 'user', accountId: 42n })).toBe('user news of account 42');
    expect(describeTarget({ scope: 'dna', dna: '.1.5.' })).toBe('DNA news of .1.5.');
  });
});
