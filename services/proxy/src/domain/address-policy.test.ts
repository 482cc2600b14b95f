import { describe, expect, it } from 'vitest';
import { classifyAddress, refuseUpstreamAddress } from './address-policy.js';

describe('classifyAddress', () => {
  it('classifies IPv4 and IPv6 addresses, mapped ones by their IPv4', () => {
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(classifyAddress('10.1.2.3')).toBe('private');
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('169.254.169.254')).toBe('link-local');
    expect(classifyAddress('0.0.0.0')).toBe('unspecified');
    expect(classifyAddress('239.1.1.1')).toBe('reserved');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::')).toBe('unspecified');
    expect(classifyAddress('fe80::1%eth0')).toBe('link-local');
    expect(classifyAddress('fd00::2')).toBe('private');
    expect(classifyAddress('::ffff:169.254.169.254')).toBe('link-local');
    expect(classifyAddress('[2001:db8::1]')).toBe('public');
  });
});

describe('refuseUpstreamAddress', () => {
  it('refuses metadata, unspecified and loopback unless loopback is allowed', () => {
    expect(refuseUpstreamAddress('169.254.169.254', true)).toMatch(/link-local/);
    expect(refuseUpstreamAddress('0.0.0.0', true)).toMatch(/unspecified/);
    expect(refuseUpstreamAddress('127.0.0.1', false)).toMatch(/loopback/);
    expect(refuseUpstreamAddress('127.0.0.1', true)).toBeUndefined();
    expect(refuseUpstreamAddress('10.0.0.5', false)).toBeUndefined();
  });
});
