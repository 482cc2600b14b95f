import { z } from 'zod';

/** The paging rule of every list (`/x-users`, `/x-dna`, `/x-keys`): docs/api.md "Lists". */
export const MAX_PAGE = 1_000_000;
export const MAX_PAGE_SIZE = 1000;

const positive = (field: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${field} must be a positive integer`)
    .transform(Number)
    .refine((value) => value >= 1, `${field} must be at least 1`);

/** `page`: from 1 to MAX_PAGE; 0 is refused, not read as the first page. */
export const pageParam = positive('page').refine(
  (value) => value <= MAX_PAGE,
  `page must be at most ${MAX_PAGE}`,
);

/** `size`: at least 1; a size above MAX_PAGE_SIZE is served as MAX_PAGE_SIZE. */
export const sizeParam = positive('size').transform((value) => Math.min(value, MAX_PAGE_SIZE));
