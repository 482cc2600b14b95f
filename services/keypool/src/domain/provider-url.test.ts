import { describe, expect, it } from 'vitest';
import { selfAddressesOf } from '@gw/kit';
import {
  checkProviderUrl,
  checkResolvedAddress,
  classifyAddress,
  normalizedProvider,
  providerHostOf,
  type ProviderUrlPolicy,
} from './provider-url.js';

// The gateway's own endpoints: every <SERVICE>_ADDR port and the edge's on loopback, the
// keypool by its compose name, each own port on a LAN address of this host, and its public host.
const self = selfAddressesOf(
  {
    ACCOUNTS_ADDR: '127.0.0.1:50051',
    KEYPOOL_ADDR: 'keypool:50053',
    PROXY_ADDR: '127.0.0.1:8081',
    GW_EDGE_PORT: 8080,
    GW_PUBLIC_URL: 'https://gateway.example.net/',
    GW_SELF_HOSTS: 'gw-internal.example.net, 198.51.100.7',
  },
  ['127.0.0.1', '10.0.0.3'],
);
const tenant: ProviderUrlPolicy = { rootPool: false, self };
const root: ProviderUrlPolicy = { rootPool: true, self };

const ALWAYS_REFUSED = [
  // the gateway itself: its listen ports on any loopback address or name, unspecified addresses
  'http://127.0.0.1:8080',
  'http://127.0.0.2:8080/',
  'http://127.0.0.1:50051/',
  'http://127.0.0.1:50056/', // MAILER_ADDR's default
  'http://127.0.0.1:8081/v1',
  'http://[::1]:50053/',
  'http://localhost:8081/',
  'http://localhost.:50051',
  'http://LOCALHOST:8080/',
  'http://api.localhost:8080/',
  'http://[::ffff:7f00:1]:8080/',
  'http://[64:ff9b::7f00:1]:50054/',
  'http://１２７.０.０.１:8080/',
  'http://0x7f.1:8081/',
  'http://keypool:50053/',
  'http://10.0.0.3:8080/',
  'http://[::ffff:10.0.0.3]:50051/',
  'http://0/',
  'http://0.0.0.0/',
  'http://0.0.0.0:11434/',
  'http://[::]/',
  'http://[::]:11434/',
  'https://gateway.example.net/v1',
  'https://GATEWAY.example.net./v1',
  'https://gateway.example.net:8443/v1',
  'http://gw-internal.example.net:9000/',
  'http://198.51.100.7:1234/',
  // link-local and metadata, multicast/reserved
  'http://169.254.169.254/latest/meta-data',
  'http://[fd00:ec2::254]/',
  'http://[fe80::1]/',
  'http://[febf::1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://metadata.google.internal/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  // not an http(s) URL with a host, or with user info
  'http://evil@127.0.0.1/',
  'http://user:pw@api.example.com/',
  'file:///etc/passwd',
  'gopher://example.com/',
  'ftp://example.com/',
  'data:text/plain,hi',
  'javascript:alert(1)',
  'not a url',
  '',
  'http://',
];

/** Loopback on a port that is not the gateway's: a model on this host (root's pool only). */
const LOOPBACK = [
  'http://127.0.0.1:11434/v1',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://0x7f.1/',
  'http://127.1/',
  'http://127.0.0.2:8000/',
  'http://[::1]/',
  'http://[::1]:11434/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::127.0.0.1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://localhost/',
  'http://localhost./',
  'http://LOCALHOST:11434/',
  'http://api.localhost/',
  'http://１２７.０.０.１/',
  'http://127.0.0.1#@x.example/',
];

const PRIVATE = [
  'http://10.0.0.5/',
  'http://10.0.0.3:11434/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.1.10:11434/',
  'http://100.64.0.1/',
  'http://[fd12::1]/',
  'http://[::ffff:10.0.0.1]/',
];

describe('Provider URL policy', () => {
  it.each(ALWAYS_REFUSED)('refuses %s for every pool', (url) => {
    expect(checkProviderUrl(url, tenant).ok).toBe(false);
    expect(checkProviderUrl(url, root).ok).toBe(false);
  });

  it.each(LOOPBACK)('allows loopback %s only for the root pool', (url) => {
    expect(checkProviderUrl(url, tenant).ok).toBe(false);
    expect(checkProviderUrl(url, root).ok).toBe(true);
  });

  it.each(PRIVATE)('allows private %s only for the root pool', (url) => {
    expect(checkProviderUrl(url, tenant).ok).toBe(false);
    expect(checkProviderUrl(url, root).ok).toBe(true);
  });

  it('names why, and checks the host the parsed URL dials', () => {
    expect(checkProviderUrl('http://127.0.0.1:8080/', root)).toMatchObject({
      ok: false,
      reason: 'must not point at the gateway itself',
    });
    expect(checkProviderUrl('http://127.0.0.1:11434/', tenant)).toMatchObject({
      ok: false,
      reason: 'must not point at a loopback address',
    });
    expect(checkProviderUrl('http://127.0.0.1#@x.example/', root)).toMatchObject({
      ok: true,
      host: '127.0.0.1',
      port: 80,
    });
    expect(checkProviderUrl('https://[::1]/', root)).toMatchObject({ ok: true, port: 443 });
  });

  it('checks resolved addresses with the URL port', () => {
    expect(checkResolvedAddress('127.0.0.1', 11434, root)).toBeUndefined();
    expect(checkResolvedAddress('127.0.0.1', 8080, root)).toMatch(/gateway itself/);
    expect(checkResolvedAddress('::1', 50051, root)).toMatch(/gateway itself/);
    expect(checkResolvedAddress('127.0.0.1', 11434, tenant)).toMatch(/loopback/);
    expect(checkResolvedAddress('0.0.0.0', 11434, root)).toMatch(/gateway itself/);
    expect(checkResolvedAddress('169.254.169.254', 80, root)).toMatch(/metadata/);
    expect(checkResolvedAddress('not-an-address', 80, root)).toMatch(/unusable/);
  });

  it.each([
    'https://api.openai.com/v1',
    'http://api.example.com:8443',
    'https://8.8.8.8/',
    'https://[2001:4860:4860::8888]/',
    'https://172.32.0.1/',
  ])('accepts the public %s', (url) => {
    expect(checkProviderUrl(url, tenant).ok).toBe(true);
  });

  it('classifies addresses', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toBe('link-local');
    expect(classifyAddress('2606:4700::1')).toBe('public');
    expect(classifyAddress('api.example.com')).toBeUndefined();
    expect(classifyAddress('1:2:3:4:5:6:7:8:9')).toBeUndefined();
  });

  it('normalizes and extracts hosts', () => {
    const check = checkProviderUrl(' https://API.Example.com/ ', tenant);
    expect(check.ok && normalizedProvider(check.url)).toBe('https://api.example.com');
    const withPath = checkProviderUrl('https://api.example.com/v1/', tenant);
    expect(withPath.ok && normalizedProvider(withPath.url)).toBe('https://api.example.com/v1/');
    expect(providerHostOf('https://API.example.com/v1')).toBe('api.example.com');
    expect(providerHostOf('api.example.com')).toBe('api.example.com');
    expect(providerHostOf('api.example.com:8443')).toBe('api.example.com');
  });
});
