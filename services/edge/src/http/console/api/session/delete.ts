import { AppError, ErrorCode } from '@gw/kit';
import { requestSession } from '../../../../console/session-auth.js';
import { cameOverHttps, sessionCookie } from '../../../../console/session-cookie.js';
import type { Route } from '../../../route.js';
import { signOutResponse } from './schemas.js';

/** DELETE /console/api/session: signs this session out (the CSRF token is required, as for any write). */
export const deleteConsoleSession: Route = {
  method: 'delete',
  path: '/console/api/session',
  access: 'user',
  doc: {
    summary: 'Sign out of the console',
    tag: 'console',
    response: signOutResponse,
    errors: [404],
  },
  async handle(deps, req, res) {
    const current = requestSession(res);
    if (!current) {
      throw new AppError(
        ErrorCode.NotFound,
        'no console session: this request was authenticated by an API key',
      );
    }
    await deps.sessions.end(current.id, current.session.accountId);
    res.setHeader('set-cookie', sessionCookie('', 0, cameOverHttps(req, deps.trustedProxies)));
    res.json({ success: true, message: 'signed out' });
  },
};
