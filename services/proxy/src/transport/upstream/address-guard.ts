import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { portOf, refuseUpstreamAddress, type UpstreamAddressPolicy } from '@gw/kit';

/**
 * A DNS lookup that refuses addresses the rule forbids (docs/decisions.md §7, checked when the
 * socket is made, so a name that resolves elsewhere after the key was saved cannot reach the
 * metadata service, the gateway itself, or — for a tenant's pool — loopback and private ranges).
 * `port` is the port the connection goes to.
 */
export function guardedLookup(policy: UpstreamAddressPolicy, port: number): LookupFunction {
  return ((
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (...args: unknown[]) => void,
  ) => {
    dnsLookup(hostname, { family: options.family ?? 0, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error);
        return;
      }
      const refused = addresses
        .map((entry) => refuseUpstreamAddress(entry.address, port, policy))
        .find(Boolean);
      const first = addresses[0];
      if (refused || !first) {
        callback(
          Object.assign(new Error(`upstream ${refused ?? 'host has no address'}`), { code: 'EGWREFUSED' }),
        );
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, first.address, first.family);
      }
    });
  }) as unknown as LookupFunction;
}

/** The rule for an IP literal host, which never goes through a lookup. */
export function refuseLiteralHost(url: URL, policy: UpstreamAddressPolicy): string | undefined {
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) ? refuseUpstreamAddress(bare, portOf(url), policy) : undefined;
}
