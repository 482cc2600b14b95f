import { accounts } from '@gw/proto';
import type { Response } from 'express';
import { callerOf } from '../../auth/authenticate.js';
import type { EdgeDeps } from '../../deps.js';

/** The caller's own account read fresh from accounts (the cache says who; balances move). */
export async function ownAccount(deps: EdgeDeps, res: Response): Promise<accounts.Account> {
  const caller = callerOf(res);
  const { account } = await deps.accounts.getAccount({
    callerId: caller.id,
    identifier: String(caller.id),
    reach: accounts.Reach.REACH_SELF_OR_DESCENDANTS,
  });
  if (!account) {
    throw new Error('accounts answered without an account');
  }
  return account;
}
