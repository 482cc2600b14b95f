import { AppError, ErrorCode } from '@gw/kit';
import { requestSession } from '../../../../console/session-auth.js';
import type { Route } from '../../../route.js';
import { sessionResponse } from './schemas.js';

/** GET /console/api/session: the console's own session (its CSRF token again, after a reload). */
export const getConsoleSession: Route = {
  method: 'get',
  path: '/console/api/session',
  access: 'user',
  doc: {
    summary: 'The current console session',
    tag: 'console',
    response: sessionResponse,
    errors: [404],
  },
  handle(deps, _req, res) {
    const current = requestSession(res);
    if (!current) {
      throw new AppError(
        ErrorCode.NotFound,
        'no console session: this request was authenticated by an API key',
      );
    }
    res.json({
      object: 'console_session',
      id: Number(current.session.accountId),
      csrf_token: current.session.csrfToken,
      idle_seconds: Math.floor(deps.sessions.limits.idleMs / 1000),
    });
    return Promise.resolve();
  },
};
