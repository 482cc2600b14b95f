/**
 * Whether an error means a backing store (PostgreSQL, Redis) did not answer: refused, cut, timed
 * out or shutting down. Such a failure is `unavailable` (503 with Retry-After), not a bug (500).
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
/**
 * SQLSTATE: connection exceptions (08…), a statement cancelled at its caller's deadline (57014),
 * the server shutting down or starting (57P01-57P03), too many connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08|57014|57P0[123]|53300)/;
/** What pg and ioredis say, without a code, when the connection dropped or a command timed out. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Connection is closed|Command timed out|Stream isn't writeable|connect ETIMEDOUT/i;

export function isStoreUnavailable(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) {
      return true;
    }
    if (UNAVAILABLE_MESSAGE.test(at.message)) {
      return true;
    }
  }
  return false;
}
