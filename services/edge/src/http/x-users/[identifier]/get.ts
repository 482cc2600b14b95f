import { accounts } from '@gw/proto';
import { listRoute } from '../list.js';

/** GET /x-users/{identifier}: one managed account, or the direct subaccounts an L/G/R/T/F filter selects. */
export const getUser = listRoute(
  '/x-users/:identifier',
  accounts.Reach.REACH_CHILDREN,
  'One direct subaccount, or those a filter selects',
);
