import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { addressVariable, ALL_SERVICES, GRPC_SERVICES, splitAddress } from '@gw/kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeConfig, ensureDockerCompose } from './docker-compose.js';
import { loadServiceConfig } from './service-env.js';

const COMPOSE_FILE = fileURLToPath(new URL('../../docker-compose.yml', import.meta.url));
const STORES = ['postgres', 'redis', 'nats'] as const;

interface ComposeService {
  build?: { context: string; dockerfile: string; args: Record<string, string> };
  environment?: Record<string, string | null>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  ports?: Array<string | { target: number; published: number | string }>;
}

const validSecrets = {
  GW_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
  GW_SECRET_KEY: randomBytes(32).toString('hex'),
};

describe('docker-compose.yml', () => {
  let services: Record<string, ComposeService>;

  beforeAll(() => {
    ensureDockerCompose();
    const rendered = composeConfig(COMPOSE_FILE, validSecrets);
    expect(rendered.status, rendered.output).toBe(0);
    services = (parse(rendered.output) as { services: Record<string, ComposeService> }).services;
  }, 300_000);

  it('is valid Compose and runs every service from deploy/Dockerfile with its SERVICE', () => {
    expect(Object.keys(services).sort()).toEqual([...ALL_SERVICES, ...STORES].sort());
    for (const name of ALL_SERVICES) {
      expect(services[name]?.build?.dockerfile).toBe('deploy/Dockerfile');
      expect(services[name]?.build?.args.SERVICE).toBe(name);
    }
  });

  it('gives every process an environment its own config schema accepts', async () => {
    for (const name of ALL_SERVICES) {
      const env = Object.fromEntries(
        Object.entries(services[name]?.environment ?? {}).filter(
          (entry): entry is [string, string] => entry[1] !== null,
        ),
      );
      await expect(loadServiceConfig(name, env), name).resolves.toBeUndefined();
    }
  });

  it('health-checks every container, gRPC services on the port they listen on', () => {
    for (const name of [...ALL_SERVICES, ...STORES]) {
      expect(services[name]?.healthcheck?.test[0], name).toBe('CMD');
    }
    for (const name of GRPC_SERVICES) {
      const listen = services[name]?.environment?.[addressVariable(name)] ?? '';
      const probed = services[name]?.healthcheck?.test.at(-1) ?? '';
      expect(probed, name).toBe(`127.0.0.1:${splitAddress(listen).port}`);
    }
  });

  it('starts services once the stores are healthy, the edge once every service is, and the proxy last', () => {
    for (const name of ALL_SERVICES) {
      for (const store of STORES) {
        expect(services[name]?.depends_on?.[store]?.condition, `${name} → ${store}`).toBe('service_healthy');
      }
    }
    for (const name of GRPC_SERVICES) {
      expect(services.edge?.depends_on?.[name]?.condition, `edge → ${name}`).toBe('service_healthy');
    }
    expect(services.proxy?.depends_on?.edge?.condition).toBe('service_healthy');
    expect(services.edge?.depends_on?.proxy).toBeUndefined();
  });

  it('publishes the proxy alone, the front door passing to the edge by EDGE_ADDR', () => {
    const published = Object.entries(services).filter(([, service]) => (service.ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(['proxy']);
    const proxy = services.proxy?.environment ?? {};
    const listen = splitAddress(proxy.PROXY_ADDR ?? '');
    expect(JSON.stringify(services.proxy?.ports)).toContain(String(listen.port));
    expect(services.proxy?.healthcheck?.test.join(' ')).toContain(
      `127.0.0.1:${listen.port}/internal/healthz`,
    );
    const edge = splitAddress(proxy.EDGE_ADDR ?? '');
    expect(edge.host).toBe('edge');
    expect(String(edge.port)).toBe(services.edge?.environment?.PORT);
    expect(proxy.GW_EDGE_PORT).toBe(String(listen.port));
  });

  it('refuses to render without GW_SECRET_KEY, naming it', () => {
    const rendered = composeConfig(COMPOSE_FILE, { GW_INTERNAL_TOKEN: validSecrets.GW_INTERNAL_TOKEN });
    expect(rendered.status).not.toBe(0);
    expect(rendered.output).toContain('GW_SECRET_KEY');
  });
});
