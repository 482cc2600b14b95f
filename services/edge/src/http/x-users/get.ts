import { accounts } from '@gw/proto';
import { listRoute } from './list.js';

/** GET /x-users: the caller's direct subaccounts. */
export const getUsers = listRoute(
  '/x-users',
  accounts.Reach.REACH_CHILDREN,
  "The caller's direct subaccounts",
);
