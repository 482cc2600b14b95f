import { AppError, ErrorCode } from '@gw/kit';
import type { OrderColumn } from './ports/accounts.js';

/** Paging and ordering of account lists (spec "Limits": size default 100, max 1000). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
export const MAX_PAGE = 1_000_000;

export function pageOf(page: number, size: number): { page: number; size: number; offset: number } {
  const p = page === 0 ? 1 : page;
  const s = size === 0 ? DEFAULT_PAGE_SIZE : size;
  if (!Number.isInteger(p) || p < 1 || p > MAX_PAGE) {
    throw new AppError(ErrorCode.InvalidRequest, `page must be an integer from 1 to ${MAX_PAGE}`);
  }
  if (!Number.isInteger(s) || s < 1 || s > MAX_PAGE_SIZE) {
    throw new AppError(ErrorCode.InvalidRequest, `size must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return { page: p, size: s, offset: (p - 1) * s };
}

const ORDER = /^(-)?(id|name|email|level|dna|created_at|updated_at)(?:[.:](asc|desc))?$/;

/** `order`: a column, `-column` or `column.desc` / `column:asc`; bare `asc`/`desc` order by id. */
export function orderOf(order: string): { column: OrderColumn; descending: boolean } {
  const text = order.trim().toLowerCase();
  if (text === '' || text === 'asc') {
    return { column: 'id', descending: false };
  }
  if (text === 'desc') {
    return { column: 'id', descending: true };
  }
  const match = ORDER.exec(text);
  if (!match) {
    throw new AppError(
      ErrorCode.InvalidRequest,
      'order must be one of id, name, email, level, dna, created_at, updated_at (prefix - or suffix .desc to reverse)',
    );
  }
  return { column: match[2] as OrderColumn, descending: match[1] === '-' || match[3] === 'desc' };
}

/** A `dna=` filter: a DNA path, the trailing dot optional (`.1.2` means the subtree `.1.2.`). */
export function dnaFilterOf(dna: string): string {
  const text = dna.trim();
  if (!/^(\.\d{1,19})+\.?$/.test(text)) {
    throw new AppError(ErrorCode.InvalidRequest, 'dna must be a path like .1.2.');
  }
  return text.endsWith('.') ? text : `${text}.`;
}
