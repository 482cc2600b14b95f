import ipaddr from 'ipaddr.js';
import { CompiledOnce } from './compiled-once.js';

/**
 * IP addresses, one library (ipaddr.js) behind every use: what kind of address a literal is (the
 * Provider and mail-server rule), allowlists of addresses and CIDRs (AllowIPs, trusted proxies),
 * and the client address behind trusted proxies.
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'unspecified' | 'link-local' | 'reserved';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** Ranges that are not `public`; the first that matches decides. */
const CLASSES: ReadonlyArray<readonly [cidr: string, kind: AddressClass]> = [
  ['0.0.0.0/8', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  // Alibaba Cloud's metadata service, inside the shared address space below.
  ['100.100.100.200/32', 'link-local'],
  ['224.0.0.0/3', 'reserved'],
  // IETF protocol assignments (NAT64 discovery, DS-Lite) and benchmarking networks.
  ['192.0.0.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'private'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
  // The AWS metadata service on IPv6 (fd00:ec2::254), inside the private fc00::/7.
  ['fd00:ec2::/32', 'link-local'],
  ['fc00::/7', 'private'],
  // Site-local (deprecated, still routed inside some networks).
  ['fec0::/10', 'private'],
  ['ff00::/8', 'reserved'],
];
const PARSED_CLASSES = CLASSES.map(([cidr, kind]) => [ipaddr.parseCIDR(cidr), kind] as const);

/**
 * IPv6 ranges that carry an IPv4 address in their last 32 bits (mapped, IPv4-translated,
 * compatible, NAT64): it decides their class.
 */
const EMBEDDING_V4 = ['::ffff:0:0/96', '::ffff:0:0:0/96', '::/96', '64:ff9b::/96', '64:ff9b:1::/48'].map(
  (cidr) => ipaddr.parseCIDR(cidr),
);

/** 6to4 (2002::/16) carries its IPv4 address in the 32 bits after the prefix. */
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');

/**
 * Every authenticated request reads its client's address two or three times (trusted proxies,
 * the failed-authentication limiter, AllowIPs), and a server sees the same few clients again and
 * again: each text is parsed once (null: not an address). Parsed addresses are shared, never
 * changed.
 */
const parsed = new CompiledOnce((text) => readIp(text) ?? null);

/**
 * An address literal, strictly: IPv4 as a dotted quad of decimals, IPv6 with or without brackets
 * (a zone id is dropped). Undefined for anything else, host names included.
 */
export function parseIp(text: string): Ip | undefined {
  return parsed.get(text) ?? undefined;
}

function readIp(text: string): Ip | undefined {
  const bare = text
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) {
    return ipaddr.IPv4.parse(bare);
  }
  return bare.includes(':') && ipaddr.IPv6.isValid(bare) ? ipaddr.IPv6.parse(bare) : undefined;
}

/** The IPv4 address an IPv6 one stands for (mapped, translated, compatible, NAT64, 6to4), or itself. */
function unwrapped(ip: Ip): Ip {
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).match(SIX_TO_FOUR)) {
    return new ipaddr.IPv4(ip.toByteArray().slice(2, 6));
  }
  if (ip.kind() === 'ipv6' && ip.toNormalizedString() !== '0:0:0:0:0:0:0:1') {
    const v6 = ip as ipaddr.IPv6;
    if (EMBEDDING_V4.some((range) => v6.match(range)) && v6.toNormalizedString() !== '0:0:0:0:0:0:0:0') {
      return new ipaddr.IPv4(v6.toByteArray().slice(12));
    }
  }
  return ip;
}

function classOf(ip: Ip): AddressClass {
  const address = unwrapped(ip);
  const found = PARSED_CLASSES.find(
    ([range]) => range[0].kind() === address.kind() && address.match(range as [Ip, number]),
  );
  return found?.[1] ?? 'public';
}

/** Classifies an address literal; undefined when it is not one (a host name). */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = parseIp(address);
  return ip ? classOf(ip) : undefined;
}

/**
 * How hosts are compared: lower case, without brackets or trailing dots; an IPv6 literal in one
 * spelling (all 8 groups, IPv4-mapped ones as the IPv4 dotted quad).
 */
export function normalizeHost(host: string): string {
  const text = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');
  const ip = text.includes(':') ? parseIp(text) : undefined;
  if (!ip) {
    return text;
  }
  const v6 = ip as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toNormalizedString();
}

/** An address with IPv4-mapped IPv6 read as the IPv4 it maps. */
function canonical(ip: Ip): Ip {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
    ? (ip as ipaddr.IPv6).toIPv4Address()
    : ip;
}

/** An address or CIDR as an address and a prefix, IPv4-mapped read as IPv4; undefined when neither. */
function parseRange(entry: string): [Ip, number] | undefined {
  const [address = '', bits, extra] = entry.split('/');
  const ip = parseIp(address);
  const max = ip?.kind() === 'ipv4' ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!ip || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
    return undefined;
  }
  const base = canonical(ip);
  // An IPv4-mapped CIDR keeps its width over the IPv4 part.
  return [base, base === ip ? prefix : Math.max(0, prefix - 96)];
}

/** A list of addresses and CIDRs (IPv4, IPv6, IPv4-mapped read as IPv4). */
export class AddressList {
  private constructor(private readonly ranges: ReadonlyArray<[Ip, number]>) {}

  /** Entries separated by spaces or commas; `{ invalid }` naming every entry that is neither. */
  static parse(text: string): AddressList | { invalid: string[] } {
    const ranges: Array<[Ip, number]> = [];
    const invalid: string[] = [];
    for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
      const range = parseRange(entry);
      if (range) {
        ranges.push(range);
      } else {
        invalid.push(entry);
      }
    }
    return invalid.length > 0 ? { invalid } : new AddressList(ranges);
  }

  /** A list known to be valid (a constant, a test); throws naming an entry that is not. */
  static of(text: string): AddressList {
    const list = AddressList.parse(text);
    if ('invalid' in list) {
      throw new Error(`not addresses or CIDRs: ${list.invalid.join(', ')}`);
    }
    return list;
  }

  get size(): number {
    return this.ranges.length;
  }

  includes(address: string): boolean {
    const ip = parseIp(address);
    if (!ip) {
      return false;
    }
    const candidate = canonical(ip);
    return this.ranges.some(
      ([base, width]) => base.kind() === candidate.kind() && candidate.match(base, width),
    );
  }

  /** Whether every address the entry (an address or a CIDR) names is in the list. */
  covers(entry: string): boolean {
    const range = parseRange(entry);
    if (!range) {
      return false;
    }
    const [ip, prefix] = range;
    return this.ranges.some(
      ([base, width]) => base.kind() === ip.kind() && width <= prefix && ip.match(base, width),
    );
  }
}

/**
 * The client's address: the socket peer, or, when the peer is a trusted proxy, the right-most
 * `X-Forwarded-For` hop that is not one (every hop trusted: the left-most). A hop that is not an
 * address stops the walk there and is answered as it is, so no allowlist matches it.
 */
export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: AddressList): string {
  if (!trusted.includes(peer) || !forwardedFor) {
    return normalizeHost(peer);
  }
  const hops = forwardedFor.split(',').map((hop) => hop.trim());
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hops[index] ?? '';
    // Not an address: the client cannot be known, and no allowlist will match what is returned.
    if (!parseIp(hop)) {
      return hop;
    }
    if (!trusted.includes(hop) || index === 0) {
      return normalizeHost(hop);
    }
  }
  return normalizeHost(peer);
}

/**
 * The unit a per-client limit counts: an IPv4 address (an IPv4-mapped IPv6 one as its IPv4),
 * an IPv6 address's /64 (one subscriber's network, whose addresses it may rotate freely), or
 * the text itself when it is not an address.
 */
export function addressGroup(address: string): string {
  const ip = parseIp(address);
  if (!ip) {
    return address;
  }
  const v4 = unwrapped(ip);
  if (v4.kind() === 'ipv4') {
    return v4.toString();
  }
  return `${(ip as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
