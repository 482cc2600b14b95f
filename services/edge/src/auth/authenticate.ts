import { createHash } from 'node:crypto';
import { AppError, ErrorCode } from '@gw/kit';
import type { accounts } from '@gw/proto';
import type { RequestHandler, Response } from 'express';
import type { AuthCache } from './auth-cache.js';

/** Who may call a route. `public` routes (signup, health) take no key. */
export type Access = 'public' | 'user' | 'owner' | 'root';

const BEARER = /^Bearer ([\x21-\x7e]{1,256})$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

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

/** Bearer key → account from the cache; 401 for a missing or unknown key, 403 for a role miss. */
export function authenticate(cache: AuthCache, access: Exclude<Access, 'public'>): RequestHandler {
  return async (req, res, next) => {
    const match = BEARER.exec(req.get('authorization') ?? '');
    if (!match?.[1]) {
      throw new AppError(ErrorCode.Unauthenticated, 'missing or malformed Authorization: Bearer <API_KEY>');
    }
    const account = await cache.get(hashKey(match[1]));
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
    res.locals.caller = account;
    next();
  };
}
