import { ownAccount } from '../own-account.js';
import { userInfoSchema, userInfoView } from '../../account-views.js';
import type { Route } from '../../route.js';
import { accountUsage } from '../../usage/account-usage.js';

/** GET /dashboard/info (old path /dashboard/x-user-info): the caller's own `user_info`. */
export function dashboardInfo(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    doc: { summary: "The caller's own user_info", tag: 'dashboard', response: userInfoSchema },
    async handle(deps, _req, res) {
      const account = await ownAccount(deps, res);
      const usage = await accountUsage(deps, account.id, new Date());
      res.json(userInfoView(account, usage.counts()));
    },
  };
}
