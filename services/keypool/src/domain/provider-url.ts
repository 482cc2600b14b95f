/**
 * Provider URL policy (docs/decisions.md §7). One parser: the WHATWG URL object that the
 * proxies will dial is what is checked, so there is no parser differential. Node's parser already
 * folds decimal/octal/hex/short and full-width IPv4 forms into dotted quads; the IPv6 forms that
 * embed IPv4 (`[::ffff:7f00:1]`, `[64:ff9b::7f00:1]`, `[::127.0.0.1]`), `[::]`, `0.0.0.0` (what
 * `http://0/` becomes, which Linux connects to loopback) and names such as `localhost.` are
 * handled by the address rule in `@gw/kit` (upstream-address.ts), which the proxies apply again
 * at connect time.
 *
 * The rule:
 * - always refused, for every pool: non-http(s) schemes, user info in the URL, "this network"
 *   (0/8, ::, so `http://0/`), link-local and cloud metadata (169.254/16, fe80::/10,
 *   fd00:ec2::254, metadata.google.internal), multicast/reserved/broadcast, and the gateway
 *   itself: the host:port of any of its own listen addresses (every `<SERVICE>_ADDR` and the
 *   edge's GW_EDGE_PORT, on any loopback address — 127/8, ::1, localhost and *.localhost with or
 *   without the trailing dot — or on the host the variable names), and the host of GW_PUBLIC_URL
 *   or any GW_SELF_HOSTS entry on any port;
 * - loopback (other ports) and private ranges (10/8, 172.16/12, 192.168/16, 100.64/10 shared
 *   CGNAT, fc00::/7) are allowed only for root's pool (the operator's self-hosted models) and
 *   refused for tenant owners;
 * - a name is also resolved (when resolution works) and every address it resolves to must pass
 *   the same rule with the URL's port; the proxies check again at connect time (DNS rebinding, S2).
 */
import {
  portOf,
  refuseUpstreamAddress,
  refuseUpstreamHost,
  classifyAddress,
  type UpstreamAddressPolicy,
} from '@gw/kit';

export { classifyAddress };

/** Root's pool or a tenant's, and the gateway's own endpoints. */
export type ProviderUrlPolicy = UpstreamAddressPolicy;

export type UrlCheck = { ok: true; url: URL; host: string; port: number } | { ok: false; reason: string };

/** Checks one address the Provider host resolves to (port: the URL's). */
export function checkResolvedAddress(
  address: string,
  port: number,
  policy: ProviderUrlPolicy,
): string | undefined {
  return refuseUpstreamAddress(address, port, policy);
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
  const port = portOf(url);
  const refused = refuseUpstreamHost(hostname, port, policy);
  if (refused) {
    return { ok: false, reason: refused };
  }
  if (classifyAddress(hostname) !== undefined) {
    return { ok: true, url, host: hostname, port };
  }
  if (name === '' || !/^[a-z0-9_.-]+$/.test(name)) {
    return { ok: false, reason: 'must have a valid host name' };
  }
  return { ok: true, url, host: name, port };
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
