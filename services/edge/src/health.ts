import { addressVariable, GRPC_SERVICES, servingStatus } from '@gw/kit';
import type { Config } from './config.js';

export interface HealthReport {
  ok: boolean;
  services: Record<string, 'serving' | 'not_serving'>;
  /** What is down, for the message: `accounts (postgres)` when its database does not answer. */
  down: string[];
}

/** The stores a backing service may report on by name (its health's dependencies). */
const STORES = ['postgres'] as const;

async function proxyServing(address: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${address}/internal/healthz`, {
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Asks every backing process whether it is serving: gRPC health for services, HTTP for proxy. A
 * service that answers "not serving" is asked which of its stores does not answer.
 */
export function healthChecker(config: Config): () => Promise<HealthReport> {
  const addresses = config as unknown as Record<string, string>;
  const grpcState = async (service: (typeof GRPC_SERVICES)[number]) => {
    const address = addresses[addressVariable(service)] ?? '';
    const state = await servingStatus(address, config.GW_INTERNAL_TOKEN);
    if (state === 'serving') {
      return { name: service, up: true, down: service };
    }
    const stores = await Promise.all(
      STORES.map(async (store) =>
        (await servingStatus(address, config.GW_INTERNAL_TOKEN, store)) === 'not_serving' ? store : '',
      ),
    );
    const named = stores.filter(Boolean);
    return {
      name: service,
      up: false,
      down: named.length > 0 ? `${service} (${named.join(', ')})` : service,
    };
  };
  return async () => {
    const checks = await Promise.all([
      ...GRPC_SERVICES.map(grpcState),
      (async () => {
        const up = await proxyServing(config.PROXY_ADDR);
        return { name: 'proxy', up, down: 'proxy' };
      })(),
    ]);
    const services = Object.fromEntries(
      checks.map(({ name, up }) => [name, up ? 'serving' : 'not_serving'] as const),
    );
    return {
      ok: checks.every(({ up }) => up),
      services,
      down: checks.filter(({ up }) => !up).map(({ down }) => down),
    };
  };
}
