import { ownAccount } from '../own-account.js';
import { userInfoView } from '../../render.js';
import type { Route } from '../../route.js';
import { accountUsage } from '../../usage/account-usage.js';

/** GET /dashboard/live: the caller's `user_info` with today's usage per model and the month's per day. */
export const dashboardLive: Route = {
  method: 'get',
  path: '/dashboard/live',
  access: 'user',
  async handle(deps, _req, res) {
    const account = await ownAccount(deps, res);
    const usage = await accountUsage(deps, account.id, new Date());
    res.json({ ...userInfoView(account, usage.block()), ...usage.live() });
  },
};
