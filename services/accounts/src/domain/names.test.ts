import { describe, expect, it } from 'vitest';
import { emailKey, emailProblem, nameKey, nameProblem, normaliseName } from './names.js';

const LENGTH = 'Name must be 4-63 characters';
const LETTER = 'Name must contain at least one letter';
const INVISIBLE = 'Name must not contain control or invisible characters';
const EMAIL = 'Email must be a valid address';

describe('nameProblem', () => {
  it.each([
    ['abc', LENGTH],
    ['abcd', undefined],
    ['a'.repeat(63), undefined],
    ['a'.repeat(64), LENGTH],
    ['', LENGTH],
  ])('judges a name of %j', (name, expected) => {
    expect(nameProblem(name)).toBe(expected);
  });

  it('counts an emoji as one character, not two UTF-16 units', () => {
    expect('a😀c'.length).toBe(4);
    expect(nameProblem('a😀c')).toBe(LENGTH);
    expect(nameProblem('ab😀c')).toBeUndefined();
    expect(nameProblem(`a${'😀'.repeat(62)}`)).toBeUndefined();
    expect(nameProblem(`a${'😀'.repeat(63)}`)).toBe(LENGTH);
  });

  it('counts characters after NFKC normalisation', () => {
    // Three full-width letters are three letters; one ligature "ﬁ" becomes "fi".
    expect(nameProblem('ａｂｃ')).toBe(LENGTH);
    expect(nameProblem('ﬁle')).toBeUndefined();
    // "e" + combining acute (two code points) composes to one "é".
    expect(nameProblem('abe\u0301')).toBe(LENGTH);
    expect(nameProblem('abce\u0301')).toBeUndefined();
  });

  it.each(['1234', '😀😀😀😀', '____', '12 34', '-_-_'])('asks for a letter in %j', (name) => {
    expect(nameProblem(name)).toBe(LETTER);
  });

  it.each(['Ålborg', '名前テスト', 'Ωmega', 'bob1', 'user_42'])('accepts %j', (name) => {
    expect(nameProblem(name)).toBeUndefined();
  });

  it.each([
    ['zero-width space', 'abc\u200bd'],
    ['zero-width joiner', 'abc\u200dd'],
    ['right-to-left override', 'abc\u202ed'],
    ['byte-order mark', '\ufeffabcd'],
    ['word joiner', 'ab\u2060cd'],
    ['NUL', 'abc\u0000d'],
    ['bell', 'abc\u0007d'],
    ['line feed', 'abc\nd'],
    ['DEL', 'abc\u007fd'],
    ['C1 control', 'abc\u0085d'],
  ])('refuses a name with a %s', (_what, name) => {
    expect(nameProblem(name)).toBe(INVISIBLE);
  });
});

describe('emailProblem', () => {
  it.each([
    'bob@example.com',
    'Bob.Smith+tag@mail.example.co.uk',
    '  bob@example.com  ',
    'bob@example.com\r\n',
  ])('accepts %j (surrounding whitespace is trimmed)', (email) => {
    expect(emailProblem(email)).toBeUndefined();
  });

  it.each([
    ['CRLF header injection', 'bob@example.com\r\nBcc: eve@example.com'],
    ['CR inside', 'bob\r@example.com'],
    ['LF inside', 'bob@exam\nple.com'],
    ['space inside', 'bob smith@example.com'],
    ['no @', 'bob.example.com'],
    ['two @', 'bob@eve@example.com'],
    ['no dot in the domain', 'bob@localhost'],
    ['empty local part', '@example.com'],
    ['angle brackets', '<bob@example.com>'],
    ['comma', 'bob@example.com,eve@example.com'],
    ['zero-width space', 'bob\u200b@example.com'],
    ['NUL', 'bob\u0000@example.com'],
    ['empty', ''],
  ])('refuses an address with %s', (_what, email) => {
    expect(emailProblem(email)).toBe(EMAIL);
  });

  it('accepts 254 characters and refuses 255', () => {
    const domain = '@example.com';
    expect(emailProblem('a'.repeat(254 - domain.length) + domain)).toBeUndefined();
    expect(emailProblem('a'.repeat(255 - domain.length) + domain)).toBe(EMAIL);
  });
});

describe('nameKey', () => {
  it('folds full-width letters and case so look-alikes collide', () => {
    expect(nameKey('ＡＢＣＤ')).toBe('abcd');
    expect(nameKey('ＡＢＣＤ')).toBe(nameKey('abcd'));
  });

  it.each([
    ['Alice', 'ALICE'],
    ['ﬁle', 'FILE'],
    ['café', 'cafe\u0301'],
    ['Ⅻabc', 'xiiABC'],
  ])('gives %j and %j the same key', (a, b) => {
    expect(nameKey(a)).toBe(nameKey(b));
  });

  it('keeps different names apart', () => {
    expect(nameKey('alice')).not.toBe(nameKey('alicia'));
    expect(nameKey('ali ce')).not.toBe(nameKey('alice'));
  });
});

describe('normaliseName', () => {
  it('applies NFKC without changing case', () => {
    expect(normaliseName('ＡＢＣＤ')).toBe('ABCD');
    expect(normaliseName('Alice')).toBe('Alice');
  });
});

describe('emailKey', () => {
  it('trims and lower-cases', () => {
    expect(emailKey('  Bob@Example.COM \n')).toBe('bob@example.com');
  });

  it('drops the DNS root dot, so newbie@example.org. is newbie@example.org', () => {
    expect(emailKey('newbie@example.org.')).toBe('newbie@example.org');
    expect(emailKey('Newbie@Example.org.. ')).toBe('newbie@example.org');
  });
});
