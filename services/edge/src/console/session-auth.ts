import { timingSafeEqual } from 'node:crypto';
import { AppError, ErrorCode, type AuthCache } from '@gw/kit';
import type { RequestHandler, Response } from 'express';
import { CSRF_HEADER, sessionIdOf } from './session-cookie.js';
import type { ConsoleSession, ConsoleSessions } from './session-store.js';

export interface SessionAuthDeps {
  cache: AuthCache;
  sessions: ConsoleSessions;
}

/**
 * Routes a console session may call: the management and dashboard API. Never the AI surface
 * (`/v1/*`, `/models`; the AI forwarding and the realtime socket read only API keys anyway).
 */
export function sessionMayCall(path: string): boolean {
  return !(path === '/models' || path === '/v1' || path.startsWith('/v1/'));
}

interface SessionLocals {
  consoleSession?: { id: string; session: ConsoleSession };
}

/** The console session that authenticated this request, if one did. */
export function requestSession(res: Response): { id: string; session: ConsoleSession } | undefined {
  return (res.locals as SessionLocals).consoleSession;
}

/** The key hash a console session stands for, for the one authentication check. */
export function sessionKeyHash(res: Response): string | undefined {
  return requestSession(res)?.session.keyHash;
}

function sameToken(sent: string | undefined, expected: string): boolean {
  const a = Buffer.from(sent ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Before the authentication of a route a session may call: a request without an Authorization
 * header but with the console cookie is authenticated by its session. The session is checked
 * against accounts through the auth cache on each use, so a rotated key, a deleted or disabled
 * account ends it even when the change event was missed. Every write needs the session's CSRF
 * token in X-CSRF-Token (403 without it). A Bearer key always wins over the cookie.
 */
export function sessionAuthentication(deps: SessionAuthDeps): RequestHandler {
  return async (req, res, next) => {
    const id = sessionIdOf(req);
    if (id === undefined || req.get('authorization') !== undefined) {
      next();
      return;
    }
    const session = await deps.sessions.use(id);
    if (!session) {
      next();
      return;
    }
    const account = await deps.cache.get(session.keyHash);
    if (!account || account.id !== session.accountId || !account.status) {
      await deps.sessions.endAll(session.accountId);
      next();
      return;
    }
    const write = req.method !== 'GET' && req.method !== 'HEAD';
    if (write && !sameToken(req.get(CSRF_HEADER), session.csrfToken)) {
      throw new AppError(ErrorCode.Forbidden, `a console write needs the session's ${CSRF_HEADER} header`);
    }
    (res.locals as SessionLocals).consoleSession = { id, session };
    next();
  };
}
