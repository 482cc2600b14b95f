import { networkInterfaces } from 'node:os';
import { z } from 'zod';
import { env } from './config.js';
import { classifyAddress, normalizeHost, type AddressList } from './ip.js';
import {
  addressVariable,
  DEFAULT_ADDRESSES,
  GRPC_SERVICES,
  LOCAL_METRICS_PORTS,
  splitAddress,
} from './topology.js';

/**
 * docs/decisions.md §7: where a Provider (an upstream base URL) may point. One rule, used by
 * keypool when a key is saved (the parsed URL and every address its name resolves to) and by the
 * proxy when it connects (every address the name resolves to then: DNS rebinding):
 * - link-local and cloud metadata, the unspecified address (`0.0.0.0`, `::`, which Linux
 *   connects to loopback) and multicast/reserved ranges are refused for every pool;
 * - the gateway's own endpoints are refused for every pool: every `<SERVICE>_ADDR`, the edge's
 *   address behind the proxy (`EDGE_ADDR`), the public port (`GW_EDGE_PORT`), its Redis and NATS (`REDIS_URL`, `NATS_URL`) and metrics ports on any
 *   loopback address (and on the host the variable names), and the host of `GW_PUBLIC_URL` and
 *   each `GW_SELF_HOSTS` entry on any port;
 * - loopback and private ranges are allowed for root's pool (self-hosted models) and refused for
 *   tenant owners' pools, except addresses inside the ranges the operator lists in
 *   GW_TENANT_PRIVATE_CIDRS (which never unlock link-local, metadata or the gateway itself).
 */
/** The gateway's own endpoints, as the Provider policy needs them. */
export interface SelfAddresses {
  /** Ports the gateway listens on (every `<SERVICE>_ADDR`, EDGE_ADDR, the public port): refused on loopback. */
  ports: readonly number[];
  /** host:port of every listen address, for hosts that are not loopback (a name or a LAN address). */
  endpoints: readonly { host: string; port: number }[];
  /** Hosts that are the gateway on any port (GW_PUBLIC_URL's host, GW_SELF_HOSTS). */
  hosts: readonly string[];
}

/**
 * The variables that describe the gateway's own endpoints; a service that checks Provider URLs
 * spreads this into its env schema. The launcher and the test kit pass every `<SERVICE>_ADDR`,
 * EDGE_ADDR and the public port (as GW_EDGE_PORT) to every process.
 */
export const selfAddressEnv = {
  ACCOUNTS_ADDR: env.serviceAddress('accounts'),
  BILLING_ADDR: env.serviceAddress('billing'),
  KEYPOOL_ADDR: env.serviceAddress('keypool'),
  CONFIG_ADDR: env.serviceAddress('config'),
  NEWS_ADDR: env.serviceAddress('news'),
  MAILER_ADDR: env.serviceAddress('mailer'),
  PROXY_ADDR: env.serviceAddress('proxy'),
  EDGE_ADDR: env
    .optionalAddress()
    .describe(
      'host:port of the edge behind the proxy, when the proxy is the front door: the proxy passes every request it does not serve itself there; empty: none.',
    ),
  GW_EDGE_PORT: env
    .port(8080)
    .describe(
      "The public port (the edge's PORT, or the proxy's when it is the front door): never an upstream on a loopback address.",
    ),
  GW_PUBLIC_URL: env.optionalUrl().describe("The gateway's public URL: an upstream on its host is refused."),
  GW_SELF_HOSTS: z
    .string()
    .default('')
    .describe('Extra host names or addresses that are the gateway itself (comma-separated), on any port.'),
};

/** This host's interface addresses (a service bound to 0.0.0.0 or :: answers on each). */
export function localInterfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => normalizeHost(entry.address)),
  );
}

/** Where a backing store's URL points (`redis://h:p`, `nats://h:p`), the scheme's port by default. */
const BACKING_URLS = { REDIS_URL: 6379, NATS_URL: 4222 } as const;

/**
 * The gateway's backing listeners the config names: its Redis and NATS (REDIS_URL, NATS_URL),
 * this process's metrics (METRICS_ADDR), and every process's metrics port as `npm start` serves
 * it on this machine (LOCAL_METRICS_PORTS): a Provider there would read or drive the gateway.
 */
function backingListeners(config: Record<string, unknown>): Array<{ host: string; port: number }> {
  const found: Array<{ host: string; port: number }> = Object.values(LOCAL_METRICS_PORTS).map((port) => ({
    host: '127.0.0.1',
    port,
  }));
  for (const [variable, defaultPort] of Object.entries(BACKING_URLS)) {
    const value = config[variable];
    if (typeof value === 'string' && URL.canParse(value)) {
      const url = new URL(value);
      found.push({ host: url.hostname, port: url.port === '' ? defaultPort : Number(url.port) });
    }
  }
  if (typeof config.METRICS_ADDR === 'string' && config.METRICS_ADDR.includes(':')) {
    found.push(splitAddress(config.METRICS_ADDR));
  }
  return found;
}

/**
 * The gateway's own endpoints from a config parsed with selfAddressEnv: the listen addresses and
 * backing listeners (`backingListeners`), and each own port on every address of this host
 * (`localAddresses`) since the edge (HOST 0.0.0.0 by default) and any service bound to an
 * unspecified address answer there too.
 */
export function selfAddressesOf(
  config: Record<string, unknown>,
  localAddresses: readonly string[] = localInterfaceAddresses(),
): SelfAddresses {
  const listen = [
    ...([...GRPC_SERVICES, 'proxy'] as const).map((service) => {
      const value = config[addressVariable(service)];
      return splitAddress(typeof value === 'string' ? value : DEFAULT_ADDRESSES[service]);
    }),
    ...(typeof config.EDGE_ADDR === 'string' && config.EDGE_ADDR.includes(':')
      ? [splitAddress(config.EDGE_ADDR)]
      : []),
    ...backingListeners(config),
  ];
  const edgePort = typeof config.GW_EDGE_PORT === 'number' ? config.GW_EDGE_PORT : 8080;
  const publicUrl =
    typeof config.GW_PUBLIC_URL === 'string' && URL.canParse(config.GW_PUBLIC_URL)
      ? new URL(config.GW_PUBLIC_URL)
      : undefined;
  const selfHosts = typeof config.GW_SELF_HOSTS === 'string' ? config.GW_SELF_HOSTS.split(',') : [];
  return {
    ports: [...new Set([edgePort, ...listen.map((address) => address.port)])],
    endpoints: [
      ...listen.map((address) => ({ host: normalizeHost(address.host), port: address.port })),
      ...localAddresses.flatMap((host) =>
        [edgePort, ...listen.map((address) => address.port)].map((port) => ({
          host: normalizeHost(host),
          port,
        })),
      ),
    ],
    hosts: [...(publicUrl ? [publicUrl.hostname] : []), ...selfHosts].map(normalizeHost).filter(Boolean),
  };
}

export interface UpstreamAddressPolicy {
  /** Root's pool: loopback and private ranges are allowed (self-hosted models). */
  rootPool: boolean;
  self: SelfAddresses;
  /** Loopback and private addresses a tenant owner's pool may reach too (GW_TENANT_PRIVATE_CIDRS). */
  tenantPrivate?: AddressList;
}

/**
 * GW_TENANT_PRIVATE_CIDRS: loopback or private ranges (comma or space separated CIDRs or single
 * addresses) tenant owners' Providers and mail servers may use; empty by default. A service that
 * checks upstream addresses spreads this into its env schema beside selfAddressEnv.
 */
export const tenantPrivateEnv = {
  GW_TENANT_PRIVATE_CIDRS: env
    .addressList()
    .describe(
      "Loopback or private ranges tenant owners' Providers and mail servers may use (docs/decisions.md §7); empty: none.",
    ),
};

/** Whether a tenant's pool may reach this loopback or private address (operator-listed ranges). */
function tenantMayReach(address: string, policy: UpstreamAddressPolicy): boolean {
  return policy.rootPool || (policy.tenantPrivate?.includes(address) ?? false);
}

/** Is host:port one of the gateway's own endpoints (by name or address)? */
export function isSelfEndpoint(host: string, port: number, self: SelfAddresses): boolean {
  const name = normalizeHost(host);
  if (self.hosts.includes(name)) {
    return true;
  }
  if (self.endpoints.some((endpoint) => endpoint.host === name && endpoint.port === port)) {
    return true;
  }
  const kind = classifyAddress(name);
  return kind === 'unspecified' || (kind === 'loopback' && self.ports.includes(port));
}

/**
 * Why an upstream may not be reached at this resolved address and port, or undefined when it may.
 * `port` is the port the connection goes to (the URL's, or the scheme's default).
 */
export function refuseUpstreamAddress(
  address: string,
  port: number,
  policy: UpstreamAddressPolicy,
): string | undefined {
  const kind = classifyAddress(address);
  if (kind === undefined) {
    return 'resolves to an unusable address';
  }
  if (kind === 'unspecified' || isSelfEndpoint(address, port, policy.self)) {
    return 'must not point at the gateway itself';
  }
  switch (kind) {
    case 'public':
      return undefined;
    case 'private':
      return tenantMayReach(address, policy) ? undefined : 'must not point at a private network address';
    case 'loopback':
      return tenantMayReach(address, policy) ? undefined : 'must not point at a loopback address';
    case 'link-local':
      return 'must not point at a link-local or metadata address';
    case 'reserved':
      return 'must not point at a multicast or reserved address';
  }
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}
