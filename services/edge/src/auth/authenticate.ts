import { AppError, ErrorCode, hashApiKey } from '@gw/kit';
import type { accounts } from '@gw/proto';
import type { RequestHandler, Response } from 'express';
import type { AuthCache } from './auth-cache.js';
import type { KeyUseRecorder } from './key-use.js';

/** Who may call a route. `public` routes (signup, health) take no key. */
export type Access = 'public' | 'user' | 'owner' | 'root';

export interface AuthDeps {
  cache: AuthCache;
  keyUses: KeyUseRecorder;
}

/** RFC 9110: the scheme name is case-insensitive; the key is printable ASCII. */
const BEARER = /^Bearer ([\x21-\x7e]{1,256})$/i;

export function callerOf(res: Response): accounts.Account {
  const caller = res.locals.caller as accounts.Account | undefined;
  if (!caller) {
    throw new AppError(ErrorCode.Internal, 'route used without authentication');
  }
  return caller;
}

function isOwner(account: accounts.Account): boolean {
  return account.isOwner || account.isRoot;
}

/**
 * The one check behind every authenticated request, HTTP or WebSocket: Bearer key → account
 * from the cache; 401 for a missing or unknown key, 403 for a disabled account or a role miss.
 * A backing outage surfaces as `unavailable` (503), never as 401.
 */
export async function resolveCaller(
  deps: AuthDeps,
  authorization: string | undefined,
  access: Exclude<Access, 'public'>,
): Promise<accounts.Account> {
  const match = BEARER.exec(authorization ?? '');
  if (!match?.[1]) {
    throw new AppError(ErrorCode.Unauthenticated, 'missing or malformed Authorization: Bearer <API_KEY>');
  }
  const keyHash = hashApiKey(match[1]);
  const account = await deps.cache.get(keyHash);
  if (!account) {
    throw new AppError(ErrorCode.Unauthenticated, 'invalid API key');
  }
  if (!account.status || account.suspended) {
    throw new AppError(ErrorCode.Forbidden, 'this account is disabled or suspended');
  }
  if (access === 'owner' && !isOwner(account)) {
    throw new AppError(ErrorCode.Forbidden, 'only the owner may use this endpoint');
  }
  if (access === 'root' && !account.isRoot) {
    throw new AppError(ErrorCode.Forbidden, 'only root may use this endpoint');
  }
  deps.keyUses.note(account.id, keyHash);
  return account;
}

/** Express middleware around resolveCaller; the account lands in res.locals.caller. */
export function authenticate(deps: AuthDeps, access: Exclude<Access, 'public'>): RequestHandler {
  return async (req, res, next) => {
    res.locals.caller = await resolveCaller(deps, req.get('authorization'), access);
    next();
  };
}
