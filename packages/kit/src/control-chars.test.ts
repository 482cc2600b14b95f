import { describe, expect, it } from 'vitest';
import { findControlCharacters, refuseControlCharacters, stripControlCharacters } from './control-chars.js';

describe('findControlCharacters', () => {
  it('names the first field, nested or in an array, whose value holds one', () => {
    expect(findControlCharacters({ Alias: 'ok', ModelMapper: { 'gpt-4o': 'a\u0000b' } })).toBe(
      'ModelMapper.gpt-4o',
    );
    expect(findControlCharacters({ tags: ['fine', 'bell\u0007'] })).toBe('tags.1');
    expect(findControlCharacters({ status: '\u007f' })).toBe('status');
  });

  it('names a key that holds one, escaped', () => {
    expect(findControlCharacters({ 'a\u0000': 1 })).toBe('a\\u0000');
  });

  it('lets tabs, line breaks, other text and non-strings through', () => {
    expect(findControlCharacters({ content: 'line\r\nnext\tcol ünïcode ✓', n: 5, b: null })).toBeUndefined();
  });
});

describe('refuseControlCharacters', () => {
  it('is an invalid_request naming the field', () => {
    expect(() => refuseControlCharacters({ email: '\u0000' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', details: { field: 'email' } }),
    );
  });
});

describe('stripControlCharacters', () => {
  it('drops NUL and friends and keeps line breaks', () => {
    expect(stripControlCharacters('/x-users/a\u0000b\u001b[1m\nend')).toBe('/x-users/ab[1m\nend');
  });
});
