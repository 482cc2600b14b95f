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

/** A caller-supplied key is used only when it is long and plain enough to be a real secret. */
export function isAcceptableSuppliedKey(key: string): boolean {
  return /^[A-Za-z0-9_-]{32,128}$/.test(key);
}
