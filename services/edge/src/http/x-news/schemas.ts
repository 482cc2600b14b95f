import { z } from 'zod';

/**
 * POST /x-news and /x-news/{target}. Lengths (title 1-100, content 1-1000 characters) are the
 * news service's rule, counted in code points there; here only the types and a hard cap.
 */
export const newsBody = z.strictObject({
  title: z.string().max(4096),
  content: z.string().max(16384),
  days: z.number().int().optional(),
});
