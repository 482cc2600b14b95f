import { describe, expect, it } from 'vitest';
import { accountMapper, isLevelAllowed, isModelAllowed } from './allowlists.js';

describe('allowlists', () => {
  it('allows every model and Level when empty', () => {
    expect(isModelAllowed('', 'anything')).toBe(true);
    expect(isLevelAllowed('', 7)).toBe(true);
  });

  it('checks space-separated model patterns and comma or space separated Levels', () => {
    expect(isModelAllowed('gpt-4* claude-3', 'gpt-4o')).toBe(true);
    expect(isModelAllowed('gpt-4* claude-3', 'claude-3-opus')).toBe(false);
    expect(isModelAllowed('gpt-4*,claude-3', 'claude-3')).toBe(true);
    expect(isLevelAllowed('1,2 3', 3)).toBe(true);
    expect(isLevelAllowed('1,2', 3)).toBe(false);
  });

  it('answers the same for a list it has compiled before', () => {
    expect(isModelAllowed('a*', 'abc')).toBe(true);
    expect(isModelAllowed('a*', 'bcd')).toBe(false);
    expect(accountMapper('fast=gpt-4o-mini').lookup('fast')).toBe('gpt-4o-mini');
    expect(accountMapper('fast=gpt-4o-mini').lookup('slow')).toBeUndefined();
  });
});
