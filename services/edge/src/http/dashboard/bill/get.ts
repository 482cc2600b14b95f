import { nanoToUsd } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import type { Route } from '../../route.js';
import { chargeBillFee } from '../../usage/bill-fee.js';
import { billQuery, billSpan } from '../../usage/bill-span.js';
import { parseInput } from '../../route.js';
import { billBody } from '../../usage/bill-view.js';
import { dashboardBillSchema, type DashboardBill } from './schemas.js';

/** GET /dashboard/bill: the caller's usage over a span of UTC days (the current month by default). */
export const dashboardBill: Route = {
  method: 'get',
  path: '/dashboard/bill',
  access: 'user',
  doc: {
    summary: "The caller's usage per UTC day and model, and the query fee",
    tag: 'dashboard',
    query: billQuery,
    response: dashboardBillSchema,
  },
  async handle(deps, req, res) {
    const caller = callerOf(res);
    const span = billSpan(parseInput(billQuery, req.query), new Date());
    await chargeBillFee(deps, req, res, caller.id, span.feeNano);
    const { rows } = await deps.billing.getUsage({
      accountIds: [caller.id],
      startDay: span.startDay,
      endDay: span.endDay,
      byAccount: false,
    });
    const body: DashboardBill = { ...billBody(rows), query_fee: nanoToUsd(span.feeNano) };
    res.json(body);
  },
};
