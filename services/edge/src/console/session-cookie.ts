import type { IncomingMessage } from 'node:http';
import type { AddressList } from '@gw/kit';

/** The console's session cookie (HttpOnly: page scripts never see it). */
export const SESSION_COOKIE = 'gw_console';

/** The header every write made with a session carries: the token the sign-in answered. */
export const CSRF_HEADER = 'x-csrf-token';

/** The session cookie's value, when the request carries one. */
export function sessionIdOf(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === SESSION_COOKIE) {
      const value = part.slice(separator + 1).trim();
      return /^[\w-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * Whether the browser reached us over https: the edge itself speaks plain HTTP, so only a trusted
 * proxy (GW_TRUSTED_PROXIES) saying `X-Forwarded-Proto: https` makes the cookie `Secure`.
 */
export function cameOverHttps(req: IncomingMessage, trustedProxies: AddressList): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  return trustedProxies.includes(peer) && first === 'https';
}

/** Set-Cookie for a new session, or (maxAgeSeconds 0) one that clears it. */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
