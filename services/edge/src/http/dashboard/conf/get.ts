import { nanoToUsd, SYSTEM_VERSION } from '@gw/kit';
import type { Route } from '../../route.js';
import { confResponse } from '../schemas.js';

/** GET /dashboard/conf: the balance thresholds, the running version and the signup switches. */
export const dashboardConf: Route = {
  method: 'get',
  path: '/dashboard/conf',
  access: 'user',
  doc: {
    summary: 'Balance thresholds, version and signup switches',
    tag: 'dashboard',
    response: confResponse,
  },
  handle(deps, _req, res) {
    res.json({
      UserMinBalance: nanoToUsd(deps.config.USER_MIN_BALANCE),
      UserApiBalance: nanoToUsd(deps.config.USER_API_BALANCE),
      SystemVersion: SYSTEM_VERSION,
      Features: { sign_enable: deps.config.SIGN_ENABLE, safe_enable: deps.config.SAFE_ENABLE },
    });
    return Promise.resolve();
  },
};
