import { ownAccount } from '../own-account.js';
import { userInfoSchema, userInfoView } from '../../account-views.js';
import type { Route } from '../../route.js';
import { accountUsage, liveUsageSchema } from '../../usage/account-usage.js';

/** GET /dashboard/live: the caller's `user_info` with today's usage per model and the month's per day. */
export const dashboardLive: Route = {
  method: 'get',
  path: '/dashboard/live',
  access: 'user',
  doc: {
    summary: "The caller's user_info with today's and this month's usage",
    tag: 'dashboard',
    response: userInfoSchema.extend(liveUsageSchema.shape),
  },
  async handle(deps, _req, res) {
    const account = await ownAccount(deps, res);
    const usage = await accountUsage(deps, account.id, new Date());
    res.json({ ...userInfoView(account, usage.counts()), ...usage.live() });
  },
};
