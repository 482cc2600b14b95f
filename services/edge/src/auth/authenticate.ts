import {
  AppError,
  authenticateKey,
  clientOf,
  ErrorCode,
  isOwnerAccount,
  type AuthDeps,
  type Credentials,
  type Use,
} from '@gw/kit';
import type { accounts } from '@gw/proto';
import type { Request, RequestHandler, Response } from 'express';
import { sessionKeyHash } from '../console/session-auth.js';

/** Who may call a route. `public` routes (signup, health) take no key. */
export type Access = 'public' | 'user' | 'owner' | 'root';

export function callerOf(res: Response): accounts.Account {
  const caller = res.locals.caller as accounts.Account | undefined;
  if (!caller) {
    throw new AppError(ErrorCode.Internal, 'route used without authentication');
  }
  return caller;
}

/** The role a route's access asks of an authenticated account: 403 for a miss. */
function assertRole(access: Exclude<Access, 'public'>, account: accounts.Account): void {
  if (access === 'owner' && !isOwnerAccount(account)) {
    throw new AppError(ErrorCode.Forbidden, 'only the owner may use this endpoint');
  }
  if (access === 'root' && !account.isRoot) {
    throw new AppError(ErrorCode.Forbidden, 'only root may use this endpoint');
  }
}

/**
 * The kit's one key check (`authenticateKey`: 401, 429, AllowIPs and account state 403) with the
 * route's role on top (403).
 */
export function resolveCaller(
  deps: AuthDeps,
  request: Credentials & {
    client: string;
    /** The key hash a console session stands for (console/session-auth.ts), instead of a key. */
    sessionKeyHash?: string;
  },
  access: Exclude<Access, 'public'>,
  use: Use,
): Promise<accounts.Account> {
  return authenticateKey(deps, request, use, (account) => assertRole(access, account));
}

function useOf(req: Request): Use {
  return req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write';
}

/** Express middleware around resolveCaller; the account lands in res.locals.caller. */
export function authenticate(deps: AuthDeps, access: Exclude<Access, 'public'>, use?: Use): RequestHandler {
  return async (req, res, next) => {
    res.locals.caller = await resolveCaller(
      deps,
      {
        authorization: req.get('authorization'),
        apiKey: req.headers['x-api-key'],
        client: clientOf(req, deps),
        sessionKeyHash: sessionKeyHash(res),
      },
      access,
      use ?? useOf(req),
    );
    next();
  };
}
