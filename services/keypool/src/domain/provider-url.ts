/**
 * Provider URL policy (RELIABILITY Decision 7, S1). One parser: the WHATWG URL object that the
 * proxies will dial is what is checked, so there is no parser differential. Node's parser already
 * folds decimal/octal/hex/short and full-width IPv4 forms into dotted quads; the IPv6 forms that
 * embed IPv4 (`[::ffff:7f00:1]`, `[64:ff9b::7f00:1]`, `[::127.0.0.1]`), `[::]`, `0.0.0.0` (what
 * `http://0/` becomes, which Linux connects to loopback) and names such as `localhost.` are
 * handled here.
 *
 * The rule:
 * - always refused, for every pool: non-http(s) schemes, user info in the URL, loopback
 *   (127/8, ::1, localhost and *.localhost with or without the trailing dot), "this network"
 *   (0/8, ::), link-local and cloud metadata (169.254/16, fe80::/10, fd00:ec2::254,
 *   metadata.google.internal), multicast/reserved/broadcast, and the gateway's own addresses
 *   (the host of GW_PUBLIC_URL and any configured self host);
 * - private ranges (10/8, 172.16/12, 192.168/16, 100.64/10 shared CGNAT, fc00::/7) are allowed
 *   only for root's pool (the single-tenant operator's self-hosted models) and refused for
 *   tenant owners;
 * - a name is also resolved (when resolution works) and every address it resolves to must pass
 *   the same rule; the proxies check again at connect time (DNS rebinding, S2).
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'unspecified' | 'link-local' | 'reserved';

export interface ProviderUrlPolicy {
  /** Root's pool may use private ranges (not loopback, link-local or metadata). */
  allowPrivate: boolean;
  /** Lower-case host names or addresses that are the gateway itself. */
  selfHosts: readonly string[];
}

export type UrlCheck = { ok: true; url: URL; host: string } | { ok: false; reason: string };

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.internal']);

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) {
    return undefined;
  }
  return parts.map(Number);
}

export function classifyIpv4(octets: readonly number[]): AddressClass {
  const [a = 0, b = 0] = octets;
  if (a === 0) {
    return 'unspecified';
  }
  if (a === 127) {
    return 'loopback';
  }
  if (a === 169 && b === 254) {
    return 'link-local';
  }
  if (a >= 224) {
    return 'reserved';
  }
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) {
    return 'private';
  }
  return 'public';
}

/** Expands an IPv6 literal (no brackets) into 8 16-bit groups; undefined when it is not one. */
function parseIpv6(text: string): number[] | undefined {
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

export function classifyIpv6(groups: readonly number[]): AddressClass {
  const g = (index: number) => groups[index] ?? 0;
  const embeddedV4 = () => [g(6) >> 8, g(6) & 0xff, g(7) >> 8, g(7) & 0xff];
  const firstFiveZero = [0, 1, 2, 3, 4].every((index) => g(index) === 0);
  if (groups.every((value) => value === 0)) {
    return 'unspecified';
  }
  if (firstFiveZero && g(5) === 0 && g(6) === 0 && g(7) === 1) {
    return 'loopback';
  }
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96 (and 64:ff9b:1::/48).
  if ((firstFiveZero && (g(5) === 0xffff || g(5) === 0)) || (g(0) === 0x64 && g(1) === 0xff9b)) {
    return classifyIpv4(embeddedV4());
  }
  if ((g(0) & 0xffc0) === 0xfe80) {
    return 'link-local';
  }
  if (g(0) === 0xfd00 && g(1) === 0x0ec2) {
    return 'link-local'; // the AWS metadata service on IPv6 (fd00:ec2::254)
  }
  if ((g(0) & 0xfe00) === 0xfc00) {
    return 'private';
  }
  if ((g(0) & 0xff00) === 0xff00) {
    return 'reserved';
  }
  return 'public';
}

/** Classifies an address literal (IPv4 dotted quad, or IPv6 with or without brackets). */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = parseIpv4(address);
  if (v4) {
    return classifyIpv4(v4);
  }
  const v6 = parseIpv6(address.replace(/^\[|\]$/g, ''));
  return v6 ? classifyIpv6(v6) : undefined;
}

function refusal(kind: AddressClass, allowPrivate: boolean): string | undefined {
  switch (kind) {
    case 'public':
      return undefined;
    case 'private':
      return allowPrivate ? undefined : 'must not point at a private network address';
    case 'loopback':
    case 'unspecified':
      return 'must not point at the gateway itself (loopback address)';
    case 'link-local':
      return 'must not point at a link-local or metadata address';
    case 'reserved':
      return 'must not point at a multicast or reserved address';
  }
}

/** Checks one address the Provider host resolves to. */
export function checkResolvedAddress(address: string, policy: ProviderUrlPolicy): string | undefined {
  const kind = classifyAddress(address);
  if (kind === undefined) {
    return 'resolves to an unusable address';
  }
  if (policy.selfHosts.includes(address.toLowerCase())) {
    return 'must not point at the gateway itself';
  }
  return refusal(kind, policy.allowPrivate);
}

/** The syntactic and address-literal part of the rule (no name resolution). */
export function checkProviderUrl(raw: string, policy: ProviderUrlPolicy): UrlCheck {
  const text = raw.trim();
  if (text.length === 0 || text.length > 2048) {
    return { ok: false, reason: 'must be an http(s) URL of at most 2048 characters' };
  }
  if (!URL.canParse(text)) {
    return { ok: false, reason: 'must be a valid http(s) URL' };
  }
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'must use http or https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not carry user info' };
  }
  const hostname = url.hostname.toLowerCase();
  if (hostname === '') {
    return { ok: false, reason: 'must name a host' };
  }
  const name = hostname.replace(/\.+$/, '');
  const self = policy.selfHosts.map((host) => host.toLowerCase().replace(/\.+$/, ''));
  if (self.includes(name) || self.includes(hostname)) {
    return { ok: false, reason: 'must not point at the gateway itself' };
  }
  const kind = classifyAddress(hostname);
  if (kind !== undefined) {
    const reason = refusal(kind, policy.allowPrivate);
    return reason ? { ok: false, reason } : { ok: true, url, host: hostname };
  }
  if (name === '' || LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) {
    return { ok: false, reason: 'must not point at the gateway itself (loopback name)' };
  }
  if (METADATA_NAMES.has(name)) {
    return { ok: false, reason: 'must not point at a link-local or metadata address' };
  }
  if (!/^[a-z0-9_.-]+$/.test(name)) {
    return { ok: false, reason: 'must have a valid host name' };
  }
  return { ok: true, url, host: name };
}

/** The stored form: the parsed URL, without a lone trailing slash. */
export function normalizedProvider(url: URL): string {
  return url.pathname === '/' && url.search === '' && url.hash === '' ? url.origin : url.href;
}

/** `provider` filter: a full URL or a bare host, compared by lower-case host name. */
export function providerHostOf(value: string): string {
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  if (!URL.canParse(withScheme)) {
    return text.toLowerCase();
  }
  return new URL(withScheme).hostname.toLowerCase().replace(/\.+$/, '');
}
