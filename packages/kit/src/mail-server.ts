import {
  classifyAddress,
  isSelfEndpoint,
  normalizeHost,
  refuseUpstreamAddress,
  type UpstreamAddressPolicy,
} from './upstream-address.js';

/**
 * Where an owner's mail server (EMAIL_SMTP, EMAIL_PORT) may point: the Provider address rule
 * (docs/decisions.md §7) applied to a host and port. Config checks it when the values are saved,
 * the mailer again on every connection, with every address the name resolves to then.
 */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'metadata.azure.internal',
]);

/** EMAIL_PORT when unset: 465 for implicit TLS (EMAIL_TLS true), else 587 (submission). */
export function mailServerPort(port: string | undefined, tls: boolean): number {
  return port && /^\d{1,5}$/.test(port) ? Number(port) : tls ? 465 : 587;
}

/**
 * Why a mail server host (a name or an address literal, IPv6 with or without brackets) may not
 * be used on this port, or undefined. A name that passes still has its resolved addresses
 * checked with `refuseUpstreamAddress` by the caller.
 */
export function refuseMailHost(
  host: string,
  port: number,
  policy: UpstreamAddressPolicy,
): string | undefined {
  const name = normalizeHost(host);
  if (name === '') {
    return 'must name a host';
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
  if (isSelfEndpoint(name, port, policy.self)) {
    return 'must not point at the gateway itself';
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
