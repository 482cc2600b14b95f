import { describe, expect, it } from 'vitest';
import {
  ALL_SERVICES,
  DEFAULT_ADDRESSES,
  LOCAL_METRICS_PORTS,
  localPorts,
  parsePortBase,
  PORT_BASE_SPAN,
  splitAddress,
} from './topology.js';

function everyPort(base: number | undefined): number[] {
  const ports = localPorts(base);
  // The proxy's address is the public port: counted once, there.
  return [
    splitAddress(ports.edge).port,
    ...Object.values(ports.addresses).map((address) => splitAddress(address).port),
    ...Object.values(ports.metrics),
    Number(new URL(ports.redisUrl).port),
    Number(new URL(ports.natsUrl).port),
    ports.postgresPort,
  ];
}

describe('localPorts', () => {
  it('keeps the documented defaults without a base', () => {
    const ports = localPorts(undefined);
    expect(ports.public).toBe(8080);
    // The proxy is the front door on the public port; the edge takes the proxy's default slot.
    expect(ports.addresses).toEqual({ ...DEFAULT_ADDRESSES, proxy: '127.0.0.1:8080' });
    expect(ports.edge).toBe(DEFAULT_ADDRESSES.proxy);
    expect(ports.metrics).toEqual(LOCAL_METRICS_PORTS);
    expect(ports.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(ports.natsUrl).toBe('nats://127.0.0.1:4222');
    expect(ports.postgresPort).toBe(5433);
  });

  it('moves every port to a fixed offset from the base, each one distinct and inside the span', () => {
    const ports = localPorts(18000);
    expect(ports.public).toBe(18000);
    expect(ports.edge).toBe('127.0.0.1:18001');
    expect(ports.addresses).toMatchObject({
      proxy: '127.0.0.1:18000',
      accounts: '127.0.0.1:18002',
      mailer: '127.0.0.1:18007',
    });
    expect(ports.metrics.accounts).toBe(18010);
    expect(ports.metrics.edge).toBe(18010 + ALL_SERVICES.length - 1);
    expect(ports.redisUrl).toBe('redis://127.0.0.1:18020');
    expect(ports.natsUrl).toBe('nats://127.0.0.1:18021');
    expect(ports.postgresPort).toBe(18022);
    const all = everyPort(18000);
    expect(new Set(all).size).toBe(all.length);
    expect(Math.max(...all) - 18000).toBe(PORT_BASE_SPAN - 1);
  });
});

describe('parsePortBase', () => {
  it('reads unset or empty as no base, and digits as the base', () => {
    expect(parsePortBase(undefined)).toBeUndefined();
    expect(parsePortBase('')).toBeUndefined();
    expect(parsePortBase('18000')).toBe(18000);
  });

  it.each(['80', '65535', '0x4650', '18000.5', 'abc', '-1'])('refuses %s, naming the range', (value) => {
    const parsed = parsePortBase(value);
    expect(parsed).toBeInstanceOf(Error);
    expect((parsed as Error).message).toContain('from 1024 to 65513');
  });
});
