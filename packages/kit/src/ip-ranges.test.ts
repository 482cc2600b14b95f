import { describe, expect, it } from 'vitest';
import { inAnyRange, parseCidr, parseCidrList, parseIp, rangeContainsRange } from './ip-ranges.js';

describe('parseCidr', () => {
  it('reads IPv4 and IPv6 ranges and single addresses, clearing host bits', () => {
    expect(parseCidr('10.1.2.3/8')).toEqual({ family: 4, network: 10n << 24n, prefix: 8 });
    expect(parseCidr('192.168.1.7')).toMatchObject({ family: 4, prefix: 32 });
    expect(parseCidr('2001:db8::/32')).toMatchObject({ family: 6, prefix: 32 });
    expect(parseCidr('[::1]')).toMatchObject({ family: 6, prefix: 128, network: 1n });
    expect(parseCidr('::ffff:10.0.0.1/32')).toMatchObject({ family: 4, prefix: 32 });
  });

  it('refuses what is not a range', () => {
    for (const text of ['10.0.0.0/33', '10.0.0/8', '::/129', '10.0.0.0/8/1', 'intranet', '10.0.0.0/-1', '']) {
      expect(parseCidr(text), text).toBeUndefined();
    }
  });
});

describe('range containment', () => {
  it('nests or is disjoint, per family', () => {
    const outer = parseCidr('10.0.0.0/8');
    const inner = parseCidr('10.20.0.0/16');
    const other = parseCidr('11.0.0.0/16');
    const v6 = parseCidr('::/0');
    if (!outer || !inner || !other || !v6) {
      throw new Error('ranges should parse');
    }
    expect(rangeContainsRange(outer, inner)).toBe(true);
    expect(rangeContainsRange(inner, outer)).toBe(false);
    expect(rangeContainsRange(outer, other)).toBe(false);
    expect(rangeContainsRange(v6, inner)).toBe(false);
    expect(rangeContainsRange(outer, outer)).toBe(true);
  });

  it('finds an address in a list, IPv4-mapped IPv6 as IPv4', () => {
    const { ranges, invalid } = parseCidrList('10.0.0.0/8, fd00::/8 nope');
    expect(invalid).toEqual(['nope']);
    expect(inAnyRange('10.9.9.9', ranges)).toBe(true);
    expect(inAnyRange('::ffff:10.9.9.9', ranges)).toBe(true);
    expect(inAnyRange('fd12::1', ranges)).toBe(true);
    expect(inAnyRange('11.0.0.1', ranges)).toBe(false);
    expect(inAnyRange('not-an-ip', ranges)).toBe(false);
    expect(parseIp('300.1.1.1')).toBeUndefined();
  });
});
