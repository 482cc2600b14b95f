import { accounts } from '@gw/proto';
import { callerOf } from '../../../auth/authenticate.js';
import { userInfoView } from '../../render.js';
import type { Route } from '../../route.js';

/** GET /dashboard/info (old path /dashboard/x-user-info): the caller's own `user_info`. */
export function dashboardInfo(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    async handle(deps, _req, res) {
      const caller = callerOf(res);
      const { account } = await deps.accounts.getAccount({
        callerId: caller.id,
        identifier: String(caller.id),
        reach: accounts.Reach.REACH_SELF_OR_DESCENDANTS,
      });
      if (!account) {
        throw new Error('accounts answered without an account');
      }
      res.json(userInfoView(account));
    },
  };
}
