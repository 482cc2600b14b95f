import { resolveAddresses } from '@gw/kit';
import type { Resolver } from '../domain/ports/deps.js';

/**
 * Resolves a Provider host for the save-time check. A name that does not resolve now (offline,
 * NXDOMAIN, slow DNS) passes here; the proxies check every address again at connect time.
 */
export function dnsResolver(timeoutMs = 1_000): Resolver {
  return { resolve: (host) => resolveAddresses(host, timeoutMs) };
}
