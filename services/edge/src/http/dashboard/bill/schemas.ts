import { z } from 'zod';
import { billBodySchema } from '../../usage/bill-view.js';

/** GET /dashboard/bill: the caller's own usage per UTC day and model, and what the query cost (USD). */
export const dashboardBillSchema = billBodySchema.extend({ query_fee: z.number() });
export type DashboardBill = z.infer<typeof dashboardBillSchema>;
