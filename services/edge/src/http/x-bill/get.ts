import { AppError, ErrorCode } from '@gw/kit';
import { accounts } from '@gw/proto';
import { callerOf } from '../../auth/authenticate.js';
import type { EdgeDeps } from '../../deps.js';
import { parseInput, type Route } from '../route.js';
import { billSpan } from '../usage/bill-span.js';
import { billBody } from '../usage/bill-view.js';
import { xBillQuery, xBillSchema, type XBill } from './schemas.js';
import { usageUsers } from './usage-users.js';

const PAGE = 1000;
/** A bill covers at most this many descendants (billing's GetUsage bound). */
const MAX_ACCOUNTS = 10_000;

/** The caller's descendants the query names: accounts confines the listing to its subtree. */
async function descendants(deps: EdgeDeps, callerId: bigint, identifier: string | undefined) {
  const found: accounts.Account[] = [];
  for (let page = 1; ; page++) {
    const listed = await deps.accounts.listAccounts({
      callerId,
      reach: accounts.Reach.REACH_DESCENDANTS,
      filter: { identifier },
      page,
      size: PAGE,
      order: '',
    });
    found.push(...listed.accounts);
    if (listed.accounts.length < PAGE || found.length >= Number(listed.total)) {
      break;
    }
    if (found.length >= MAX_ACCOUNTS) {
      throw new AppError(
        ErrorCode.InvalidRequest,
        `more than ${MAX_ACCOUNTS} accounts: narrow them with user (an L/G/R/T/F filter or a DNA path)`,
      );
    }
  }
  return found;
}

/** GET /x-bill: usage of the caller's descendants (or those `user` names) over a span of UTC days. */
export const getXBill: Route = {
  method: 'get',
  path: '/x-bill',
  access: 'user',
  doc: {
    summary: "Usage of the caller's descendants over a span of UTC days",
    tag: 'accounts',
    query: xBillQuery,
    response: xBillSchema,
  },
  async handle(deps, req, res) {
    const query = parseInput(xBillQuery, req.query);
    const span = billSpan(query, new Date());
    const caller = callerOf(res);
    const listed = await descendants(deps, caller.id, query.user ?? query.u);
    const { rows } = await deps.billing.getUsage({
      accountIds: listed.map((account) => account.id),
      startDay: span.startDay,
      endDay: span.endDay,
      byAccount: true,
    });
    const body: XBill = { ...billBody(rows), usage_users: usageUsers(listed, rows) };
    res.json(body);
  },
};
