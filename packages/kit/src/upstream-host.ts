import { classifyAddress, normalizeHost } from './ip.js';
import { isSelfEndpoint, refuseUpstreamAddress, type UpstreamAddressPolicy } from './upstream-address.js';

/**
 * The address rule (docs/decisions.md §7) for a host as configured, before any resolution:
 * address literals by their class, loopback names as loopback, metadata names always refused,
 * the gateway's own names refused. Used for Provider URLs (keypool) and mail servers (config,
 * mailer); the caller checks the addresses a name resolves to with `refuseResolvedAddresses`.
 */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'metadata.azure.internal',
]);

/**
 * Why an upstream host (a name or an address literal, IPv6 with or without brackets) may not be
 * used on this port, or undefined. A name that passes still has its resolved addresses checked
 * by the caller.
 */
export function refuseUpstreamHost(
  host: string,
  port: number,
  policy: UpstreamAddressPolicy,
): string | undefined {
  const name = normalizeHost(host);
  if (name === '') {
    return 'must name a host';
  }
  if (isSelfEndpoint(name, port, policy.self)) {
    return 'must not point at the gateway itself';
  }
  if (classifyAddress(name) !== undefined) {
    return refuseUpstreamAddress(name, port, policy);
  }
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) {
    return refuseUpstreamAddress('127.0.0.1', port, policy);
  }
  if (METADATA_NAMES.has(name)) {
    return 'must not point at a link-local or metadata address';
  }
  return undefined;
}

/** The first refusal among the addresses a name resolved to, or undefined when all may be used. */
export function refuseResolvedAddresses(
  addresses: readonly string[],
  port: number,
  policy: UpstreamAddressPolicy,
): string | undefined {
  return addresses.map((address) => refuseUpstreamAddress(address, port, policy)).find(Boolean);
}
