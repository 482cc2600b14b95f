import { isOwnerAccount, nanoToUsd } from '@gw/kit';
import { ownAccount } from '../own-account.js';
import { canManage, maskedKey } from '../../account-views.js';
import type { Route } from '../../route.js';
import { statusResponse } from '../schemas.js';

/** GET /dashboard/status (old path /dashboard/x-user-status): the caller's own summary. */
export function dashboardStatus(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    doc: { summary: "The caller's own summary", tag: 'dashboard', response: statusResponse },
    async handle(deps, _req, res) {
      const account = await ownAccount(deps, res);
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
        is_owner: account.isOwner,
        suspended: account.suspended,
      });
    },
  };
}
