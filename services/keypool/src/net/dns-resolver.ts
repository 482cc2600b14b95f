import { lookup } from 'node:dns/promises';
import type { Resolver } from '../domain/ports.js';

/**
 * Resolves a Provider host for the save-time check. A name that does not resolve now (offline,
 * NXDOMAIN, slow DNS) passes here; the proxies check every address again at connect time.
 */
export function dnsResolver(timeoutMs = 1_000): Resolver {
  return {
    async resolve(host) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      try {
        const found = await Promise.race([
          lookup(host, { all: true, verbatim: true }).then((addresses) =>
            addresses.map((entry) => entry.address),
          ),
          timeout,
        ]);
        return found;
      } catch {
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
