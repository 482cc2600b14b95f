/**
 * IP addresses and CIDR ranges, one parser for every service: the Provider address rule
 * (`upstream-address.ts`, GW_TENANT_PRIVATE_CIDRS) and account IP allowlists (AllowIPs).
 * An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is read as the IPv4 address it carries.
 */

/** Four octets, or undefined when the text is not a dotted quad. */
export function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) {
    return undefined;
  }
  return parts.map(Number);
}

/** Expands an IPv6 literal (no brackets) into 8 16-bit groups; undefined when it is not one. */
export function parseIpv6(text: string): number[] | undefined {
  let body = text.toLowerCase();
  const zone = body.indexOf('%');
  if (zone >= 0) {
    body = body.slice(0, zone);
  }
  const lastColon = body.lastIndexOf(':');
  const last = body.slice(lastColon + 1);
  if (last.includes('.')) {
    // A trailing dotted quad stands for the last two groups.
    const v4 = parseIpv4(last);
    if (!v4) {
      return undefined;
    }
    const hi = (((v4[0] ?? 0) << 8) | (v4[1] ?? 0)).toString(16);
    const lo = (((v4[2] ?? 0) << 8) | (v4[3] ?? 0)).toString(16);
    body = `${body.slice(0, lastColon + 1)}${hi}:${lo}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) {
    return undefined;
  }
  const group = (part: string) => (part === '' ? [] : part.split(':'));
  const head = group(halves[0] ?? '');
  const rest = halves.length === 2 ? group(halves[1] ?? '') : [];
  if ([...head, ...rest].some((part) => !/^[0-9a-f]{1,4}$/.test(part))) {
    return undefined;
  }
  const known = head.length + rest.length;
  if (halves.length === 1 ? known !== 8 : known > 7) {
    return undefined;
  }
  const zeros = new Array<number>(8 - known).fill(0);
  return [...head, ...zeros.map(String), ...rest].map((part) => parseInt(part, 16));
}

/** An address as a family and a number (32 bits for IPv4, 128 for IPv6). */
export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

/** A CIDR range: the addresses whose first `prefix` bits equal the network's. */
export interface IpRange {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

/** An address literal (IPv6 with or without brackets); undefined when it is none. */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.trim().replace(/^\[|\]$/g, '');
  const v4 = parseIpv4(bare);
  if (v4) {
    return { family: 4, value: v4.reduce((sum, octet) => (sum << 8n) | BigInt(octet), 0n) };
  }
  const v6 = parseIpv6(bare);
  if (!v6) {
    return undefined;
  }
  if (v6.slice(0, 5).every((group) => group === 0) && v6[5] === 0xffff) {
    return { family: 4, value: (BigInt(v6[6] ?? 0) << 16n) | BigInt(v6[7] ?? 0) };
  }
  return { family: 6, value: v6.reduce((sum, group) => (sum << 16n) | BigInt(group), 0n) };
}

function mask(family: 4 | 6, prefix: number): bigint {
  const bits = BITS[family];
  return prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
}

/**
 * `a.b.c.d/n`, `x::y/n` or a single address (a /32 or /128). Host bits below the prefix are
 * cleared (`10.1.2.3/8` is `10.0.0.0/8`). Undefined when the text is not one.
 */
export function parseCidr(text: string): IpRange | undefined {
  const [addressText = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) {
    return undefined;
  }
  const address = parseIp(addressText);
  if (!address) {
    return undefined;
  }
  const bits = BITS[address.family];
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) {
    return undefined;
  }
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) {
    return undefined;
  }
  return { family: address.family, network: address.value & mask(address.family, prefix), prefix };
}

export function rangeContainsAddress(range: IpRange, address: IpAddress): boolean {
  return (
    range.family === address.family && (address.value & mask(range.family, range.prefix)) === range.network
  );
}

/** Whether every address of `inner` is in `outer` (two CIDR ranges either nest or are disjoint). */
export function rangeContainsRange(outer: IpRange, inner: IpRange): boolean {
  return (
    outer.family === inner.family &&
    outer.prefix <= inner.prefix &&
    (inner.network & mask(outer.family, outer.prefix)) === outer.network
  );
}

/** A list of ranges (comma and/or whitespace separated): the ranges, and the entries that are not one. */
export function parseCidrList(text: string): { ranges: IpRange[]; invalid: string[] } {
  const ranges: IpRange[] = [];
  const invalid: string[] = [];
  for (const entry of text.split(/[\s,]+/).filter((item) => item !== '')) {
    const range = parseCidr(entry);
    if (range) {
      ranges.push(range);
    } else {
      invalid.push(entry);
    }
  }
  return { ranges, invalid };
}

/** Whether an address literal falls in any of the ranges. */
export function inAnyRange(address: string, ranges: readonly IpRange[]): boolean {
  const parsed = parseIp(address);
  return parsed !== undefined && ranges.some((range) => rangeContainsAddress(range, parsed));
}
