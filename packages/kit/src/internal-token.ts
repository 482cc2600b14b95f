import { timingSafeEqual } from 'node:crypto';

/**
 * The shared secret on every internal hop: gRPC metadata between services and the HTTP header of
 * the HTTP hops between the proxy and the edge (both ways) carry it under the same name.
 */
export const INTERNAL_TOKEN_HEADER = 'x-gw-internal-token';

/** Constant-time comparison of a presented secret with the expected one. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
