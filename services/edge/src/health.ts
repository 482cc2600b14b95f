import { addressVariable, GRPC_SERVICES, isServing } from '@gw/kit';
import type { Config } from './config.js';

export interface HealthReport {
  ok: boolean;
  services: Record<string, 'serving' | 'not_serving'>;
}

async function proxyServing(address: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${address}/healthz`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Asks every backing process whether it is serving: gRPC health for services, HTTP for proxy. */
export function healthChecker(config: Config): () => Promise<HealthReport> {
  const addresses = config as unknown as Record<string, string>;
  return async () => {
    const checks = await Promise.all([
      ...GRPC_SERVICES.map(
        async (service) =>
          [
            service,
            await isServing(addresses[addressVariable(service)] ?? '', config.GW_INTERNAL_TOKEN),
          ] as const,
      ),
      (async () => ['proxy', await proxyServing(config.PROXY_ADDR)] as const)(),
    ]);
    const services = Object.fromEntries(
      checks.map(([name, up]) => [name, up ? 'serving' : 'not_serving'] as const),
    );
    return { ok: checks.every(([, up]) => up), services };
  };
}
