import { portOf, type UpstreamAddressPolicy } from '@gw/kit';
import { buildConnector, type Client } from 'undici';
import { guardedLookup } from './address-guard.js';

/** Set while undici hands a connection it just made to the request waiting for it. */
let handingOverNewConnection = false;

/**
 * Whether the request being written now goes out on a connection made for it. undici writes a
 * waiting request synchronously inside the connector's callback, so a request written outside
 * one went out on a pooled connection that already served others.
 */
export function onNewConnection(): boolean {
  return handingOverNewConnection;
}

/**
 * How undici connects to one upstream origin: through the address guard for the origin's port
 * (checked when each socket is made: a pooled socket skips the lookup, docs/decisions.md §7),
 * one request per connection at a time, idle connections closed after `idleSocketMs` (or a
 * second before the upstream's own `Keep-Alive: timeout`, as node:http's agent did). Connecting
 * and the wait for headers have no timeout of undici's own: the caller's first-byte timeout
 * covers both, and a body's silence is the relay's to judge.
 */
export function connectionOptions(
  policy: UpstreamAddressPolicy,
  origin: string,
  idleSocketMs: number,
): Client.Options {
  const connect = buildConnector({ lookup: guardedLookup(policy, portOf(new URL(origin))), timeout: 0 });
  return {
    connect: (options, callback) =>
      connect(options, (...result) => {
        handingOverNewConnection = result[0] === null;
        try {
          callback(...result);
        } finally {
          handingOverNewConnection = false;
        }
      }),
    pipelining: 1,
    keepAliveTimeout: idleSocketMs,
    keepAliveMaxTimeout: idleSocketMs,
    keepAliveTimeoutThreshold: 1_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  };
}
