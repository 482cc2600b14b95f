import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { addressVariable, GRPC_SERVICES } from './topology.js';
import { classifyAddress, normalizeHost } from './ip.js';
import {
  isSelfEndpoint,
  refuseUpstreamAddress,
  selfAddressEnv,
  selfAddressesOf,
  tenantPrivateEnv,
} from './upstream-address.js';

describe('classifyAddress', () => {
  it('classifies IPv4 and IPv6 addresses, embedded IPv4 by its IPv4', () => {
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
    expect(classifyAddress('64:ff9b::7f00:1')).toBe('loopback');
    expect(classifyAddress('[2001:db8::1]')).toBe('public');
    expect(classifyAddress('api.example.com')).toBeUndefined();
  });

  it('classifies metadata, site-local, 6to4, IPv4-translated, benchmarking and IETF protocol addresses', () => {
    // Alibaba Cloud's metadata service sits inside the shared 100.64.0.0/10.
    expect(classifyAddress('100.100.100.200')).toBe('link-local');
    expect(classifyAddress('100.64.0.1')).toBe('private');
    // Deprecated site-local IPv6 is a private network.
    expect(classifyAddress('fec0::1')).toBe('private');
    // 6to4 and IPv4-translated (SIIT) addresses are their embedded IPv4.
    expect(classifyAddress('2002:7f00:1::')).toBe('loopback');
    expect(classifyAddress('2002:a9fe:a9fe::1')).toBe('link-local');
    expect(classifyAddress('2002:808:808::1')).toBe('public');
    expect(classifyAddress('::ffff:0:7f00:1')).toBe('loopback');
    expect(classifyAddress('::ffff:0:a00:1')).toBe('private');
    expect(classifyAddress('198.18.0.1')).toBe('reserved');
    expect(classifyAddress('198.19.255.255')).toBe('reserved');
    expect(classifyAddress('192.0.0.170')).toBe('reserved');
    expect(classifyAddress('192.0.1.1')).toBe('public');
  });

  it('compares hosts in one spelling', () => {
    expect(normalizeHost('[::FFFF:7f00:1]')).toBe('127.0.0.1');
    expect(normalizeHost('0:0:0:0:0:0:0:1')).toBe(normalizeHost('::1'));
    expect(normalizeHost('Gateway.Example.NET.')).toBe('gateway.example.net');
  });
});

describe("the gateway's own endpoints", () => {
  it('reads every <SERVICE>_ADDR, EDGE_ADDR, GW_EDGE_PORT, GW_PUBLIC_URL and GW_SELF_HOSTS', () => {
    for (const service of [...GRPC_SERVICES, 'proxy'] as const) {
      expect(Object.keys(selfAddressEnv)).toContain(addressVariable(service));
    }
    const config = loadConfig(selfAddressEnv, {
      BILLING_ADDR: 'billing:7000',
      EDGE_ADDR: 'edge:7100',
      GW_EDGE_PORT: '9090',
      GW_PUBLIC_URL: 'https://GW.example.com/',
      GW_SELF_HOSTS: ' a.example , ',
    });
    const self = selfAddressesOf(config, ['192.168.5.5']);
    expect(self.ports).toEqual(expect.arrayContaining([9090, 7000, 50051, 50053, 50056, 8081]));
    expect(self.hosts).toEqual(['gw.example.com', 'a.example']);
    expect(isSelfEndpoint('billing', 7000, self)).toBe(true);
    expect(isSelfEndpoint('billing', 7001, self)).toBe(false);
    expect(isSelfEndpoint('edge', 7100, self)).toBe(true);
    expect(isSelfEndpoint('127.0.0.1', 7100, self)).toBe(true);
    expect(isSelfEndpoint('192.168.5.5', 9090, self)).toBe(true);
    expect(isSelfEndpoint('192.168.5.5', 9091, self)).toBe(false);
    expect(isSelfEndpoint('127.0.0.9', 9090, self)).toBe(true);
    expect(isSelfEndpoint('::1', 50053, self)).toBe(true);
    expect(isSelfEndpoint('0.0.0.0', 1, self)).toBe(true);
    expect(isSelfEndpoint('gw.example.com', 443, self)).toBe(true);
  });

  it("counts the gateway's Redis, NATS and metrics listeners as its own", () => {
    const self = selfAddressesOf(
      {
        REDIS_URL: 'redis://127.0.0.1:6390/2',
        NATS_URL: 'nats://queue.internal:4333',
        METRICS_ADDR: '0.0.0.0:9555',
      },
      ['192.168.5.5'],
    );
    expect(isSelfEndpoint('127.0.0.1', 6390, self)).toBe(true);
    expect(isSelfEndpoint('::1', 6390, self)).toBe(true);
    expect(isSelfEndpoint('queue.internal', 4333, self)).toBe(true);
    expect(isSelfEndpoint('192.168.5.5', 9555, self)).toBe(true);
    expect(isSelfEndpoint('127.0.0.1', 9555, self)).toBe(true);
    // The launcher's default metrics ports on this machine.
    expect(isSelfEndpoint('127.0.0.1', 9401, self)).toBe(true);
    expect(isSelfEndpoint('127.0.0.1', 6391, self)).toBe(false);
    // Without a port, the scheme's: Redis 6379, NATS 4222.
    const defaults = selfAddressesOf({ REDIS_URL: 'redis://127.0.0.1', NATS_URL: 'nats://127.0.0.1' }, []);
    expect(isSelfEndpoint('127.0.0.1', 6379, defaults)).toBe(true);
    expect(isSelfEndpoint('127.0.0.1', 4222, defaults)).toBe(true);
  });
});

describe('refuseUpstreamAddress', () => {
  const self = { ports: [8080], endpoints: [], hosts: [] };
  it('allows loopback and private ranges for root only, never the gateway or metadata', () => {
    expect(refuseUpstreamAddress('127.0.0.1', 11434, { rootPool: true, self })).toBeUndefined();
    expect(refuseUpstreamAddress('127.0.0.1', 11434, { rootPool: false, self })).toMatch(/loopback/);
    expect(refuseUpstreamAddress('127.0.0.1', 8080, { rootPool: true, self })).toMatch(/gateway itself/);
    expect(refuseUpstreamAddress('10.0.0.5', 80, { rootPool: true, self })).toBeUndefined();
    expect(refuseUpstreamAddress('10.0.0.5', 80, { rootPool: false, self })).toMatch(/private/);
    expect(refuseUpstreamAddress('169.254.169.254', 80, { rootPool: true, self })).toMatch(/metadata/);
    expect(refuseUpstreamAddress('::', 11434, { rootPool: true, self })).toMatch(/gateway itself/);
    expect(refuseUpstreamAddress('8.8.8.8', 443, { rootPool: false, self })).toBeUndefined();
  });
});

describe('GW_TENANT_PRIVATE_CIDRS', () => {
  const self = { ports: [8080], endpoints: [], hosts: [] };
  const { GW_TENANT_PRIVATE_CIDRS: tenantPrivate } = loadConfig(tenantPrivateEnv, {
    GW_TENANT_PRIVATE_CIDRS: '10.20.0.0/16, 127.0.0.1 169.254.0.0/16',
  });
  const tenant = { rootPool: false, self, tenantPrivate };

  it('lets a tenant pool reach only the listed loopback and private ranges', () => {
    expect(refuseUpstreamAddress('10.20.3.4', 80, tenant)).toBeUndefined();
    expect(refuseUpstreamAddress('10.21.3.4', 80, tenant)).toMatch(/private/);
    expect(refuseUpstreamAddress('127.0.0.1', 11434, tenant)).toBeUndefined();
    expect(refuseUpstreamAddress('::ffff:127.0.0.1', 11434, tenant)).toBeUndefined();
    expect(refuseUpstreamAddress('127.0.0.2', 11434, tenant)).toMatch(/loopback/);
  });

  it('never unlocks metadata, link-local or the gateway itself', () => {
    expect(refuseUpstreamAddress('169.254.169.254', 80, tenant)).toMatch(/metadata/);
    expect(refuseUpstreamAddress('127.0.0.1', 8080, tenant)).toMatch(/gateway itself/);
  });

  it('refuses a value that is not a list of ranges when the service starts', () => {
    expect(() => loadConfig(tenantPrivateEnv, { GW_TENANT_PRIVATE_CIDRS: '10.0.0.0/8, intranet' })).toThrow(
      /GW_TENANT_PRIVATE_CIDRS: not addresses or CIDRs: intranet/,
    );
    expect(loadConfig(tenantPrivateEnv, {}).GW_TENANT_PRIVATE_CIDRS.size).toBe(0);
  });
});
