import { nanoToUsd } from '@gw/kit';
import { accounts } from '@gw/proto';
import { callerOf } from '../../../auth/authenticate.js';
import { canManage, isOwnerAccount, maskedKey } from '../../render.js';
import type { Route } from '../../route.js';

/** GET /dashboard/status (old path /dashboard/x-user-status): the caller's own summary. */
export function dashboardStatus(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    async handle(deps, _req, res) {
      const caller = callerOf(res);
      // The cached identity says who; the balance is read fresh.
      const { account } = await deps.accounts.getAccount({
        callerId: caller.id,
        identifier: String(caller.id),
        reach: accounts.Reach.REACH_SELF_OR_DESCENDANTS,
      });
      if (!account) {
        throw new Error('accounts answered without an account');
      }
      res.json({
        object: 'user_status',
        id: Number(account.id),
        dna: account.dna,
        name: account.name,
        email: account.email,
        alias: account.alias,
        public_key: maskedKey(account),
        balance: nanoToUsd(account.balanceNano),
        manage: canManage(account),
        admin: isOwnerAccount(account),
        suspended: account.suspended,
      });
    },
  };
}
