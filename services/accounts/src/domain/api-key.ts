import { randomBytes } from 'node:crypto';
import { hashApiKey } from '@gw/kit';

/** Account API keys: `sk-gw-` + 43 url-safe characters (256 random bits). Stored only hashed. */
export const KEY_PREFIX = 'sk-gw-';
const VISIBLE_CHARS = 10;

export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function describeKey(key: string): { hash: string; prefix: string; last4: string } {
  return { hash: hashApiKey(key), prefix: key.slice(0, VISIBLE_CHARS), last4: key.slice(-4) };
}

/**
 * Why a key chosen by its account (rotation with `key`) is too weak, or undefined when it is
 * strong (docs/decisions.md §15): 32-128 characters of A-Z, a-z, 0-9, `_` and `-`, with a
 * lower-case letter, an upper-case letter and a digit, at least 16 different characters and no
 * character repeated more than 4 times in a row. The message never repeats the key.
 */
export function weakKeyProblem(key: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{32,128}$/.test(key)) {
    return 'key must be 32-128 characters of A-Z, a-z, 0-9, _ and -';
  }
  if (!/[a-z]/.test(key) || !/[A-Z]/.test(key) || !/[0-9]/.test(key)) {
    return 'key must mix lower-case letters, upper-case letters and digits';
  }
  if (new Set(key).size < 16) {
    return 'key must use at least 16 different characters';
  }
  if (/(.)\1{4}/.test(key)) {
    return 'key must not repeat a character more than 4 times in a row';
  }
  return undefined;
}
