import { AppError } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { dnaFilterOf, orderOf, pageOf } from './listing.js';

describe('pageOf', () => {
  it('defaults to page 1 of 100 and computes the offset', () => {
    expect(pageOf(0, 0)).toEqual({ page: 1, size: 100, offset: 0 });
    expect(pageOf(3, 20)).toEqual({ page: 3, size: 20, offset: 40 });
  });

  it('refuses out-of-range pages and sizes', () => {
    for (const [page, size] of [
      [-1, 10],
      [1, -1],
      [1, 1001],
      [1.5, 10],
      [2_000_000, 10],
    ] as const) {
      expect(() => pageOf(page, size)).toThrow(AppError);
    }
  });
});

describe('orderOf', () => {
  it('reads a column with an optional direction', () => {
    expect(orderOf('')).toEqual({ column: 'id', descending: false });
    expect(orderOf('-name')).toEqual({ column: 'name', descending: true });
    expect(orderOf('created_at.desc')).toEqual({ column: 'created_at', descending: true });
    expect(orderOf('level:asc')).toEqual({ column: 'level', descending: false });
    expect(orderOf('desc')).toEqual({ column: 'id', descending: true });
  });

  it('refuses anything else', () => {
    expect(() => orderOf('key_hash')).toThrow(AppError);
    expect(() => orderOf('id; DROP TABLE x')).toThrow(AppError);
  });
});

describe('dnaFilterOf', () => {
  it('adds the trailing dot so .1.2 never matches .1.23.', () => {
    expect(dnaFilterOf('.1.2')).toBe('.1.2.');
    expect(dnaFilterOf('.1.2.')).toBe('.1.2.');
  });

  it('refuses what is not a DNA path', () => {
    for (const bad of ['1.2', '.1.x.', '.%.', "'.1.'", '']) {
      expect(() => dnaFilterOf(bad)).toThrow(AppError);
    }
  });
});
