import { z } from 'zod';
import { billQuery } from '../usage/bill-span.js';
import { billBodySchema } from '../usage/bill-view.js';

/** GET /x-bill's query: `user`/`u` picks descendants (id, name, e-mail, DNA or L/G/R/T/F filter). */
export const xBillQuery = billQuery.extend({
  user: z.string().min(1).max(320).optional(),
  u: z.string().min(1).max(320).optional(),
});

const userUsage = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  total_requests: z.number().int(),
  total_prompt: z.number().int(),
  total_completion: z.number().int(),
  total_cached: z.number().int(),
  total_cost: z.number(),
  /** This account's share of the listed accounts' totals, in percent (two decimals). */
  usage_analysis: z.object({
    request_percentage: z.number(),
    cost_percentage: z.number(),
    prompt_percentage: z.number(),
    completion_percentage: z.number(),
  }),
  model_usage: z.record(z.string(), z.object({ requests: z.number().int(), cost: z.number() })),
});

/** GET /x-bill: the bill of the caller's descendants together, and each one's part. */
export const xBillSchema = billBodySchema.extend({ usage_users: z.array(userUsage) });
export type XBill = z.infer<typeof xBillSchema>;
export type UserUsage = z.infer<typeof userUsage>;
