import { dashboardStatus } from './http/dashboard/status/get.js';
import { getHealthz } from './http/healthz/get.js';
import type { Route } from './http/route.js';
import { postSelf } from './http/x-self/post.js';
import { postUsers } from './http/x-users/post.js';

/**
 * Every HTTP endpoint of the edge with its access level. Authorization tests walk this table, so
 * a route missing here cannot be reached.
 */
export const ROUTES: readonly Route[] = [
  getHealthz,
  dashboardStatus('/dashboard/status'),
  dashboardStatus('/dashboard/x-user-status'),
  postUsers,
  postSelf,
];
