import { describe, expect, it } from 'vitest';
import { parseIdentifier } from './identifier.js';

describe('parseIdentifier', () => {
  describe('numeric id', () => {
    it.each<[string, bigint]>([
      ['1', 1n],
      ['42', 42n],
      ['0001', 1n],
      [' 7 ', 7n],
      ['9223372036854775807', 2n ** 63n - 1n],
    ])('reads %j as the id %s', (raw, id) => {
      expect(parseIdentifier(raw)).toEqual({ kind: 'id', id });
    });

    it.each(['0', '000', '9223372036854775808', '99999999999999999999999'])(
      'refuses %j as outside 1..2^63-1',
      (raw) => {
        expect(parseIdentifier(raw)).toBeUndefined();
      },
    );
  });

  describe('e-mail', () => {
    it('reads anything with an @ as an e-mail, lower-cased and trimmed', () => {
      expect(parseIdentifier(' Bob.Smith@Example.COM ')).toEqual({
        kind: 'email',
        email: 'bob.smith@example.com',
      });
    });

    it('reads an e-mail that starts with a dot or a prefix letter as an e-mail', () => {
      expect(parseIdentifier('.x@example.com')).toEqual({ kind: 'email', email: '.x@example.com' });
      expect(parseIdentifier('L3@example.com')).toEqual({ kind: 'email', email: 'l3@example.com' });
    });
  });

  describe('DNA path', () => {
    it.each(['.1.', '.1.2.', '.10.200.3000.'])('reads %j as a DNA path', (raw) => {
      expect(parseIdentifier(raw)).toEqual({ kind: 'dna', dna: raw });
    });

    it.each([
      '.',
      '..',
      '.1..2.',
      '.1.2',
      '..%2F',
      decodeURIComponent('..%2F'),
      '.1.a.',
      '.-1.',
      '.1.2./',
      '.1. 2.',
    ])('refuses the malformed path %j', (raw) => {
      expect(parseIdentifier(raw)).toBeUndefined();
    });
  });

  describe('prefix filter', () => {
    it.each([
      ['L3', 'level', 3],
      ['G0', 'gear', 0],
      ['R12', 'role', 12],
      ['T9', 'tier', 9],
      ['L1234', 'level', 1234],
      ['T999999999', 'tier', 999_999_999],
    ] as const)('reads %j as the %s filter %i', (raw, field, value) => {
      expect(parseIdentifier(raw)).toEqual({ kind: 'filter', field, value });
    });

    it.each([
      ['F1.5', 1.5],
      ['F2', 2],
      ['F0.25', 0.25],
      ['F0.000000001', 0.000000001],
    ])('reads %j as the factor filter %s', (raw, value) => {
      expect(parseIdentifier(raw)).toEqual({ kind: 'filter', field: 'factor', value });
    });

    it.each([
      'L-1',
      'G+2',
      'L1234567890',
      'L1.5',
      'R1e3',
      'F1e400',
      'F-1',
      'F.5',
      'F1.',
      'F1.2.3',
      'F1.0000000001',
    ])('refuses %j, which looks like a filter but is not a valid one', (raw) => {
      expect(parseIdentifier(raw)).toBeUndefined();
    });
  });

  describe('username', () => {
    it.each([
      'alice',
      'Lara',
      'l3',
      'L3x',
      'F1x',
      'Leee',
      'Feed',
      'Te-e',
      'bob smith',
      '名前テスト',
      '😀abc',
    ])('reads %j as a name', (raw) => {
      expect(parseIdentifier(raw)).toEqual({ kind: 'name', name: raw });
    });

    it('trims the name', () => {
      expect(parseIdentifier('  alice\t')).toEqual({ kind: 'name', name: 'alice' });
    });
  });

  describe('refusals', () => {
    it.each(['', '   ', '\t\n'])('refuses the blank input %j', (raw) => {
      expect(parseIdentifier(raw)).toBeUndefined();
    });

    it.each([decodeURIComponent('%00'), 'ali\0ce', 'alice\0', '\u00001', 'a\0@example.com', '.1.\0'])(
      'refuses %j for containing NUL',
      (raw) => {
        expect(parseIdentifier(raw)).toBeUndefined();
      },
    );

    it('accepts 320 characters and refuses 321', () => {
      expect(parseIdentifier('a'.repeat(320))).toEqual({ kind: 'name', name: 'a'.repeat(320) });
      expect(parseIdentifier('a'.repeat(321))).toBeUndefined();
      expect(parseIdentifier(`${'a'.repeat(309)}@example.com`)).toBeUndefined();
      expect(parseIdentifier('1'.repeat(400))).toBeUndefined();
    });
  });
});
