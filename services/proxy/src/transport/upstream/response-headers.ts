import type { IncomingHttpHeaders } from 'node:http';

/** Headers node:http keeps the first of when an answer repeats them. */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * An answer's headers (lower-case names, a repeated one as a list, as undici gives them) in the
 * shape node:http gives them, which the relay reads: a repeated header is its first value when
 * node keeps only that one, `set-cookie` stays a list, `cookie` is joined with '; ' and any
 * other with ', '. So `content-type`, `content-length` and `retry-after` are always one string.
 */
export function nodeHeaders(headers: Record<string, string | string[] | undefined>): IncomingHttpHeaders {
  for (const name in headers) {
    const value = headers[name];
    if (Array.isArray(value) && name !== 'set-cookie') {
      headers[name] = FIRST_ONLY.has(name) ? value[0] : value.join(name === 'cookie' ? '; ' : ', ');
    }
  }
  return headers;
}
