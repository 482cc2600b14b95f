import type { IncomingMessage } from 'node:http';
import type { accounts } from '@gw/proto';
import { hashApiKey } from '../api-key-hash.js';
import { CompiledOnce } from '../compiled-once.js';
import { AppError, ErrorCode } from '../errors.js';
import { INTERNAL_TOKEN_HEADER, sameSecret } from '../internal-token.js';
import { AddressList, clientAddress } from '../ip.js';
import type { AuthCache } from './auth-cache.js';
import type { FailedAuthLimiter } from './failed-auth.js';
import type { KeyUseRecorder } from './key-use.js';

/** What a request does: reads answer even for a disabled or suspended account. */
export type Use = 'read' | 'write' | 'ai';

export interface AuthDeps {
  cache: AuthCache;
  keyUses: KeyUseRecorder;
  failedAuth: FailedAuthLimiter;
  /** GW_TRUSTED_PROXIES: peers whose X-Forwarded-For is believed. */
  trustedProxies: AddressList;
  /** GW_INTERNAL_TOKEN: a request carrying it may name its client in CLIENT_ADDRESS_HEADER. */
  internalToken: string;
}

/**
 * The client of a request another gateway process passes on (the proxy hands management requests
 * to the edge): believed only beside the internal token.
 */
export const CLIENT_ADDRESS_HEADER = 'x-gw-client';

/** RFC 9110: the scheme name is case-insensitive; the key is printable ASCII. */
const BEARER = /^Bearer ([\x21-\x7e]{1,256})$/i;
/** The key alone, as Anthropic's older SDKs, curl-style tools and agents send it in `x-api-key`. */
const BARE_KEY = /^[\x21-\x7e]{1,256}$/;

/** The credentials a request carries: its Authorization header and, for AI calls, `x-api-key`. */
export interface Credentials {
  authorization: string | undefined;
  apiKey?: string | string[] | undefined;
}

/**
 * The gateway key of a request: `Authorization: Bearer <key>`, or, when there is no
 * Authorization header, `x-api-key: <key>` (given once).
 */
function keyOf(credentials: Credentials): string | undefined {
  if (credentials.authorization !== undefined) {
    return BEARER.exec(credentials.authorization)?.[1];
  }
  const { apiKey } = credentials;
  return typeof apiKey === 'string' && BARE_KEY.test(apiKey) ? apiKey : undefined;
}

/** AllowIPs lists arrive with every cached account: each distinct one is parsed once. */
const allowIpLists = new CompiledOnce((text) => AddressList.parse(text));

/**
 * The client of a request: the one a gateway process names beside the internal token, else the
 * socket peer, or the client behind trusted proxies.
 */
export function clientOf(
  req: IncomingMessage,
  deps: Pick<AuthDeps, 'trustedProxies' | 'internalToken'>,
): string {
  const named = req.headers[CLIENT_ADDRESS_HEADER];
  const token = req.headers[INTERNAL_TOKEN_HEADER];
  if (typeof named === 'string' && typeof token === 'string' && sameSecret(token, deps.internalToken)) {
    return named;
  }
  const forwarded = req.headers['x-forwarded-for'];
  return clientAddress(
    req.socket.remoteAddress ?? '',
    Array.isArray(forwarded) ? forwarded.join(',') : forwarded,
    deps.trustedProxies,
  );
}

/**
 * AllowIPs, the account's and each its ancestors impose (docs/decisions.md §13): an empty list
 * allows every address; a list that cannot be read allows none.
 */
function assertAllowedAddress(account: accounts.Account, client: string): void {
  for (const text of [account.allowIps, ...(account.inherited?.allowIps ?? [])]) {
    const allowed = allowIpLists.get(text);
    if ('invalid' in allowed ? true : allowed.size > 0 && !allowed.includes(client)) {
      throw new AppError(ErrorCode.Forbidden, `this key may not be used from ${client}`);
    }
  }
}

/**
 * A disabled or suspended account, or one below a disabled or suspended ancestor, may read; it
 * may not change anything or call AI.
 */
function assertActive(account: accounts.Account, use: Use): void {
  if (use === 'read') {
    return;
  }
  if (account.suspended) {
    throw new AppError(ErrorCode.Forbidden, 'this account is suspended: AI calls and changes are refused');
  }
  if (!account.status) {
    throw new AppError(ErrorCode.Forbidden, 'this account is disabled: AI calls and changes are refused');
  }
  // The parent holds its children's keys: its switch turns off its whole subtree.
  if (account.inherited?.suspended) {
    throw new AppError(
      ErrorCode.Forbidden,
      'an account above this one is suspended: AI calls and changes are refused',
    );
  }
  if (account.inherited?.disabled) {
    throw new AppError(
      ErrorCode.Forbidden,
      'an account above this one is disabled: AI calls and changes are refused',
    );
  }
}

/**
 * The one check behind every authenticated request, HTTP or WebSocket: the key (Bearer, or
 * `x-api-key` on AI calls) → account from the cache (unknown keys remembered briefly); 401 for a
 * missing or unknown key, 429 for an address that keeps failing (never for a key that has
 * authenticated), 403 for an address outside AllowIPs or a disabled or suspended account (except
 * to read). `mayUse` adds the caller's own checks (a route's role), thrown as they are, before
 * the key counts as used. A backing outage surfaces as `unavailable` (503), never as 401.
 */
export async function authenticateKey(
  deps: AuthDeps,
  request: Credentials & {
    client: string;
    /** The key hash a console session stands for, instead of a key. */
    sessionKeyHash?: string;
  },
  use: Use,
  mayUse?: (account: accounts.Account) => void,
): Promise<accounts.Account> {
  const key = keyOf(use === 'ai' ? request : { authorization: request.authorization ?? '' });
  const keyHash = request.sessionKeyHash ?? (key === undefined ? undefined : hashApiKey(key));
  const wait = deps.failedAuth.waitFor(request.client, keyHash);
  if (wait > 0) {
    throw new AppError(ErrorCode.RateLimited, 'too many failed authentications from this address', {
      retryAfterSeconds: Math.ceil(wait / 1000),
    });
  }
  const account = keyHash === undefined ? undefined : await deps.cache.get(keyHash);
  if (keyHash === undefined || !account) {
    deps.failedAuth.note(request.client);
    throw new AppError(
      ErrorCode.Unauthenticated,
      keyHash
        ? 'invalid API key'
        : use === 'ai'
          ? 'missing or malformed Authorization: Bearer <API_KEY> (or x-api-key: <API_KEY>)'
          : 'missing or malformed Authorization: Bearer <API_KEY>',
    );
  }
  assertAllowedAddress(account, request.client);
  assertActive(account, use);
  mayUse?.(account);
  deps.failedAuth.succeeded(keyHash);
  deps.keyUses.note(account.id, keyHash);
  return account;
}
