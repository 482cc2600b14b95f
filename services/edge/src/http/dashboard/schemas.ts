import { z } from 'zod';
import { usd } from '../../openapi/shared-schemas.js';
import { newsItemSchema } from '../x-news/schemas.js';

/** GET /dashboard/status. */
export const statusResponse = z.object({
  object: z.literal('user_status'),
  id: z.number().int(),
  dna: z.string(),
  name: z.string(),
  email: z.string(),
  alias: z.string(),
  public_key: z.string(),
  balance: usd,
  manage: z.boolean(),
  admin: z.boolean(),
  is_owner: z.boolean(),
  suspended: z.boolean(),
});

/** GET /dashboard/logs. */
export const logsResponse = z.object({
  logs: z.array(
    z.object({
      id: z.number().int(),
      action: z.string(),
      operator_id: z.number().int(),
      target_type: z.string(),
      target_id: z.number().int(),
      details: z.string(),
      ip_address: z.string(),
      created_at: z.string(),
      status: z.string(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  size: z.number().int(),
  has_more: z.boolean(),
});

/** GET /dashboard/news. */
export const newsResponse = z.object({
  success: z.literal(true),
  system_news: z.array(newsItemSchema),
  user_news: z.array(newsItemSchema),
  dna_news: z.array(newsItemSchema),
  page: z.number().int(),
  size: z.number().int(),
  system_total: z.number().int(),
  user_total: z.number().int(),
  dna_total: z.number().int(),
});

/** GET /dashboard/conf. */
export const confResponse = z.object({
  UserMinBalance: usd,
  UserApiBalance: usd,
  SystemVersion: z.string(),
  Features: z.object({ sign_enable: z.boolean(), safe_enable: z.boolean() }),
});
