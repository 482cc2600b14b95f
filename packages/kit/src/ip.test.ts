import { describe, expect, it } from 'vitest';
import { AddressList, clientAddress, parseIp } from './ip.js';

const list = (text: string) => AddressList.of(text);

describe('AddressList', () => {
  it('matches single addresses and CIDRs, IPv4 and IPv6, separated by spaces or commas', () => {
    const allowed = list('203.0.113.7, 10.0.0.0/8 2001:db8::/32,192.168.1.0/24');
    expect(
      ['203.0.113.7', '10.20.30.40', '2001:db8::1', '192.168.1.255'].map((a) => allowed.includes(a)),
    ).toEqual([true, true, true, true]);
    expect(
      ['203.0.113.8', '11.0.0.1', '2001:db9::1', '192.168.2.1', 'not-an-ip'].map((a) => allowed.includes(a)),
    ).toEqual([false, false, false, false, false]);
  });

  it('reads IPv4-mapped IPv6 as the IPv4 it maps, in the list and in the address', () => {
    expect(list('10.0.0.0/8').includes('::ffff:10.1.2.3')).toBe(true);
    expect(list('::ffff:10.0.0.0/104').includes('10.9.9.9')).toBe(true);
    expect(list('::ffff:203.0.113.7').includes('203.0.113.7')).toBe(true);
    expect(list('10.0.0.0/8').includes('::ffff:11.1.2.3')).toBe(false);
  });

  it('names every entry that is not an address or CIDR', () => {
    expect(AddressList.parse('10.0.0.0/8 10.0.0.0/33')).toEqual({ invalid: ['10.0.0.0/33'] });
    expect(AddressList.parse('1.2.3, example.com')).toEqual({ invalid: ['1.2.3', 'example.com'] });
    expect(AddressList.parse('::1/abc 10.0.0.0/8/8')).toEqual({ invalid: ['::1/abc', '10.0.0.0/8/8'] });
    expect(AddressList.parse('10.0.0/8 ::/129 intranet 10.0.0.0/-1')).toEqual({
      invalid: ['10.0.0/8', '::/129', 'intranet', '10.0.0.0/-1'],
    });
    expect(list('[::1] fd00::/8').includes('fd12::1')).toBe(true);
    expect(list('').size).toBe(0);
  });

  it('covers a CIDR only when every address of it is inside one of its ranges', () => {
    const parent = list('10.0.0.0/8, 2001:db8::/32');
    expect(
      ['10.1.0.0/16', '10.0.0.0/8', '10.2.3.4', '2001:db8:1::/48', '::ffff:10.1.1.1'].map((e) =>
        parent.covers(e),
      ),
    ).toEqual([true, true, true, true, true]);
    expect(
      ['0.0.0.0/0', '10.0.0.0/7', '11.0.0.1', '2001:db8::/31', 'nonsense'].map((e) => parent.covers(e)),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('clientAddress', () => {
  const trusted = list('10.0.0.0/8');

  it('is the socket peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
  });

  it('is the right-most untrusted hop behind trusted proxies', () => {
    expect(clientAddress('10.0.0.2', '1.2.3.4, 198.51.100.7, 10.0.0.5', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', '10.0.0.9, 10.0.0.8', trusted)).toBe('10.0.0.9');
    expect(clientAddress('10.0.0.2', undefined, trusted)).toBe('10.0.0.2');
  });

  it('answers a forged hop that is not an address as it is, so no allowlist matches it', () => {
    expect(clientAddress('10.0.0.2', '1.2.3.4, garbage', trusted)).toBe('garbage');
  });
});

describe('parseIp', () => {
  it('answers the same for a text read again, an address or not', () => {
    for (let round = 0; round < 2; round += 1) {
      expect(parseIp('192.0.2.7')?.toString()).toBe('192.0.2.7');
      expect(parseIp('[2001:db8::1]')?.toNormalizedString()).toBe('2001:db8:0:0:0:0:0:1');
      expect(parseIp('example.com')).toBeUndefined();
      expect(parseIp('1.2.3')).toBeUndefined();
    }
  });

  it('keeps answering correctly past the bound of what it remembers', () => {
    for (let index = 0; index < 10_000; index += 1) {
      parseIp(`10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`);
    }
    expect(parseIp('10.0.0.1')?.toString()).toBe('10.0.0.1');
    expect(parseIp('not an address')).toBeUndefined();
  });
});
