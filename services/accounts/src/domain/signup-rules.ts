import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { AppError, ErrorCode, normalizeHost } from '@gw/kit';
import { emailKey, emailProblem, nameProblem, normaliseName } from './names.js';

/** Pure rules of self-signup: addresses, codes, tokens, names and client buckets. */
export const SIGNUP_LIFETIME_MS = 10 * 60_000;
export const SIGNUP_COOLDOWN_MS = 2 * 60_000;
export const MAX_WRONG_CODES = 5;
export const MAX_DAILY_FAILURES = 20;
const CODE_DIGITS = 6;

/**
 * The address a signup is about: its `emailKey` as for accounts (docs/decisions.md §10),
 * with an internationalised domain in its ASCII (punycode) form, so `A@X.com`, ` a@x.com ` and
 * `a@bücher.example` / `a@xn--bcher-kva.example` each share one bucket.
 */
export function normaliseSignupEmail(raw: string): string {
  const email = emailKey(raw);
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? domainToASCII(email.slice(at + 1)) : '';
  const normal = domain === '' ? email : `${email.slice(0, at)}@${domain}`;
  if (domain === '' || emailProblem(normal)) {
    throw new AppError(ErrorCode.InvalidRequest, 'Email must be a valid address', { field: 'email' });
  }
  return normal;
}

export function generateCode(): string {
  return String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
}

export function isCodeShaped(code: string): boolean {
  return new RegExp(`^\\d{${CODE_DIGITS}}$`).test(code);
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isTokenShaped(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

/** The UTC day of the daily counters. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The client a per-IP cap counts: an IPv4 address, or an IPv6 address's /64 (one subscriber's
 * usual allocation, so rotating inside it gains nothing); IPv4-mapped IPv6 counts as the IPv4.
 */
export function ipBucket(ip: string): string {
  const host = normalizeHost(ip);
  if (host === '') {
    return 'unknown';
  }
  const groups = host.split(':');
  return groups.length === 8 ? `${groups.slice(0, 4).join(':')}::/64` : host;
}

/**
 * A name for a signed-up account from its address's local part (letters, digits, `.`, `_`, `-`;
 * at most 40 characters; `user` in front when that leaves too little or no letter). `attempt`
 * > 0 adds a random suffix, for when the plain name is taken.
 */
export function signupName(email: string, attempt: number): string {
  const local = normaliseName(email.slice(0, email.lastIndexOf('@')));
  let base = Array.from(local.replace(/[^\p{L}\p{N}._-]/gu, '').replace(/^[.]+/, ''))
    .slice(0, 40)
    .join('');
  if (nameProblem(base)) {
    base = `user${base}`.slice(0, 44);
  }
  return attempt === 0 ? base : `${base}-${randomBytes(4).toString('hex')}`;
}

/**
 * The keyed hash signup state stores instead of codes and tokens: HMAC-SHA256 under a key
 * derived from GW_SECRET_KEY, so a copy of Redis cannot be searched through the million
 * possible codes.
 */
export function signupHasher(secretKeyHex: string): (value: string) => string {
  const key = createHmac('sha256', Buffer.from(secretKeyHex, 'hex')).update('gw-signup-state').digest();
  return (value) => createHmac('sha256', key).update(value).digest('hex');
}
