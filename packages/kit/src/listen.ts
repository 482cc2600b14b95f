import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './log.js';
import { splitAddress } from './topology.js';

/** Where a server binds: `host:port` as the `*_ADDR` variables give it, or the two apart. */
export type ListenAddress = string | { host: string; port: number };

/** The one line every server of the gateway logs once it is bound, HTTP and gRPC alike. */
export function logListening(log: Logger, what: string, host: string, port: number): void {
  log.info({ address: `${host}:${port}` }, `${what} listening`);
}

/**
 * Binds an HTTP server and resolves with the port it got (the one asked for, or the one the
 * system chose for 0) once it listens. A failure to bind (EADDRINUSE, EACCES) rejects, so the
 * service's start fails through `runService` like any other start-up error, instead of reaching
 * an `'error'` handler of its own.
 */
export async function listenHttp(
  server: Server,
  address: ListenAddress,
  log: Logger,
  what: string,
): Promise<number> {
  const { host, port } = typeof address === 'string' ? splitAddress(address) : address;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  logListening(log, what, host, bound);
  return bound;
}
