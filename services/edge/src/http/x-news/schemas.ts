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
/** A news item as the dashboard and the create answer show it (`newsItemView`). */
export const newsItemSchema = z
  .object({
    id: z.number().int(),
    title: z.string(),
    content: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'NewsItem' });

const scope = z.enum(['system', 'user', 'dna']);

/** POST /x-news and /x-news/{target}. */
export const newsCreatedResponse = z.object({ success: z.literal(true), scope, news: newsItemSchema });

/** DELETE /x-news and /x-news/{target}. */
export const newsDeletedResponse = z.object({ success: z.literal(true), scope, deleted: z.number().int() });
