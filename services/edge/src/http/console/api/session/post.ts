import { AppError, clientOf, ErrorCode, hashApiKey } from '@gw/kit';
import { resolveCaller } from '../../../../auth/authenticate.js';
import { cameOverHttps, sessionCookie } from '../../../../console/session-cookie.js';
import { parseInput, type Route } from '../../../route.js';
import { sessionResponse, signInBody } from './schemas.js';

/**
 * POST /console/api/session (no key header): exchanges a pasted API key for a console session,
 * an HttpOnly SameSite=Strict cookie; the key itself is kept nowhere. The key passes the same
 * check as any Bearer key (failed-attempt limit, AllowIPs); a disabled account may not sign in.
 */
export const postConsoleSession: Route = {
  method: 'post',
  path: '/console/api/session',
  access: 'public',
  doc: {
    summary: 'Sign in to the console with an API key',
    tag: 'console',
    body: signInBody,
    response: sessionResponse,
    errors: [401, 403, 429],
  },
  async handle(deps, req, res) {
    const { key } = parseInput(signInBody, req.body);
    const account = await resolveCaller(
      deps,
      { authorization: `Bearer ${key}`, client: clientOf(req, deps) },
      'user',
      'read',
    );
    if (!account.status) {
      throw new AppError(ErrorCode.Forbidden, 'this account is disabled: it may not sign in to the console');
    }
    const { sessionId, csrfToken } = await deps.sessions.open(account.id, hashApiKey(key));
    const { idleMs, maxAgeMs } = deps.sessions.limits;
    res.setHeader(
      'set-cookie',
      sessionCookie(sessionId, Math.floor(maxAgeMs / 1000), cameOverHttps(req, deps.trustedProxies)),
    );
    res.json({
      object: 'console_session',
      id: Number(account.id),
      csrf_token: csrfToken,
      idle_seconds: Math.floor(idleMs / 1000),
    });
  },
};
