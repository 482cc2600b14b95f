/**
 * RELIABILITY Decision 7 at connect time (DNS rebinding): whatever a Provider's host name resolves
 * to when the proxy connects, link-local and metadata addresses, the unspecified address and
 * multicast/reserved ranges are refused, and so is loopback (the gateway itself) unless the
 * operator allows it. keypool has already checked the URL itself when the key was saved.
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'unspecified' | 'reserved';

function classifyIpv4(text: string): AddressClass | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) {
    return undefined;
  }
  const [a = 0, b = 0] = parts.map(Number);
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

export function classifyAddress(address: string): AddressClass {
  const text = address.toLowerCase().replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const v4 = classifyIpv4(text);
  if (v4) {
    return v4;
  }
  const mapped = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped?.[1]) {
    return classifyIpv4(mapped[1]) ?? 'reserved';
  }
  if (!text.includes(':')) {
    return 'reserved';
  }
  if (/^(0{0,4}:)*:?0{0,3}1$/.test(text) || text === '::1') {
    return 'loopback';
  }
  if (/^[0:]+$/.test(text)) {
    return 'unspecified';
  }
  if (/^fe[89ab]/.test(text)) {
    return 'link-local';
  }
  if (/^f[cd]/.test(text)) {
    return 'private';
  }
  if (text.startsWith('ff')) {
    return 'reserved';
  }
  return 'public';
}

/** Why the proxy will not connect to this resolved address, or undefined when it may. */
export function refuseUpstreamAddress(address: string, allowLoopback: boolean): string | undefined {
  const kind = classifyAddress(address);
  switch (kind) {
    case 'public':
    case 'private':
      return undefined;
    case 'loopback':
      return allowLoopback ? undefined : 'upstream resolves to a loopback address';
    case 'link-local':
    case 'unspecified':
    case 'reserved':
      return `upstream resolves to a ${kind} address`;
  }
}
