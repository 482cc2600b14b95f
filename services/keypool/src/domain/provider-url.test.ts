import { describe, expect, it } from 'vitest';
import { checkProviderUrl, classifyAddress, normalizedProvider, providerHostOf, type ProviderUrlPolicy } from './provider-url.js';

const tenant: ProviderUrlPolicy = { allowPrivate: false, selfHosts: ['gateway.example.net'] };
const root: ProviderUrlPolicy = { allowPrivate: true, selfHosts: ['gateway.example.net'] };

const ALWAYS_REFUSED = [
  'http://127.0.0.1:8080',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://0x7f.1/',
  'http://127.1/',
  'http://0/',
  'http://0.0.0.0/',
  'http://[::]/',
  'http://[::1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::127.0.0.1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://localhost/',
  'http://localhost./',
  'http://LOCALHOST/',
  'http://api.localhost/',
  'http://evil@127.0.0.1/',
  'http://user:pw@api.example.com/',
  'http://127.0.0.1#@x.example/',
  'http://１２７.０.０.１/',
  'http://127.0.0.2:8080/',
  'http://169.254.169.254/latest/meta-data',
  'http://[fd00:ec2::254]/',
  'http://[fe80::1]/',
  'http://[febf::1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://metadata.google.internal/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'https://gateway.example.net/v1',
  'https://GATEWAY.example.net./v1',
  'file:///etc/passwd',
  'gopher://example.com/',
  'ftp://example.com/',
  'data:text/plain,hi',
  'javascript:alert(1)',
  'not a url',
  '',
  'http://',
];

const PRIVATE = ['http://10.0.0.5/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.1.10:11434/', 'http://100.64.0.1/', 'http://[fd12::1]/', 'http://[::ffff:10.0.0.1]/'];

describe('Provider URL policy', () => {
  it.each(ALWAYS_REFUSED)('refuses %s for every pool', (url) => {
    expect(checkProviderUrl(url, tenant).ok).toBe(false);
    expect(checkProviderUrl(url, root).ok).toBe(false);
  });

  it.each(PRIVATE)('allows private %s only for the root pool', (url) => {
    expect(checkProviderUrl(url, tenant).ok).toBe(false);
    expect(checkProviderUrl(url, root).ok).toBe(true);
  });

  it.each(['https://api.openai.com/v1', 'http://api.example.com:8443', 'https://8.8.8.8/', 'https://[2001:4860:4860::8888]/', 'https://172.32.0.1/'])(
    'accepts the public %s',
    (url) => {
      expect(checkProviderUrl(url, tenant).ok).toBe(true);
    },
  );

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
