import { accounts } from '@gw/proto';
import { z } from 'zod';
import { callerOf } from '../../auth/authenticate.js';
import { userInfoSchema, userInfoView } from '../account-views.js';
import { accountUsage } from '../usage/account-usage.js';
import { parseInput, type Route } from '../route.js';

/** `user` is required (the interface's rule): an owner reads its own info at /dashboard/info. */
const infoQuery = z.object({
  user: z
    .string({ error: 'user is required: the id, name, e-mail or DNA path of an account' })
    .trim()
    .min(1, 'user must name an account')
    .max(320),
});

/** GET /x-info?user=<identifier>: the owner reads the `user_info` of itself or an account below it. */
export const getInfo: Route = {
  method: 'get',
  path: '/x-info',
  access: 'owner',
  doc: {
    summary: 'The user_info of the owner or an account below it',
    tag: 'accounts',
    query: infoQuery,
    response: userInfoSchema,
    errors: [404],
  },
  async handle(deps, req, res) {
    const query = parseInput(infoQuery, req.query);
    const caller = callerOf(res);
    const { account } = await deps.accounts.getAccount({
      callerId: caller.id,
      identifier: query.user,
      reach: accounts.Reach.REACH_SELF_OR_DESCENDANTS,
    });
    if (!account) {
      throw new Error('accounts answered without an account');
    }
    const usage = await accountUsage(deps, account.id, new Date());
    res.json(userInfoView(account, usage.counts()));
  },
};
