/**
 * Which processes make up the gateway and where they listen by default. One variable per
 * process address (`<NAME>_ADDR`) serves both the server (to bind) and its clients (to dial), so
 * one environment describes the whole deployment.
 */
export const GRPC_SERVICES = ['accounts', 'billing', 'keypool', 'config', 'news', 'mailer'] as const;
export type GrpcServiceName = (typeof GRPC_SERVICES)[number];

export const ALL_SERVICES = [...GRPC_SERVICES, 'proxy', 'edge'] as const;
export type ServiceName = (typeof ALL_SERVICES)[number];

export const DEFAULT_ADDRESSES: Record<GrpcServiceName | 'proxy', string> = {
  accounts: '127.0.0.1:50051',
  billing: '127.0.0.1:50052',
  keypool: '127.0.0.1:50053',
  config: '127.0.0.1:50054',
  news: '127.0.0.1:50055',
  mailer: '127.0.0.1:50056',
  proxy: '127.0.0.1:8081',
};

/**
 * Where `npm start` has each process serve `GET /metrics` (its METRICS_ADDR), all on one machine;
 * `<NAME>_METRICS_ADDR` given to `npm start` moves one (empty: none). A deployment sets
 * METRICS_ADDR per process itself; unset, a process serves no metrics.
 */
export const LOCAL_METRICS_PORTS: Record<ServiceName, number> = {
  accounts: 9401,
  billing: 9402,
  keypool: 9403,
  config: 9404,
  news: 9405,
  mailer: 9406,
  proxy: 9407,
  edge: 9408,
};

export function metricsAddressVariable(service: ServiceName): string {
  return `${service.toUpperCase()}_METRICS_ADDR`;
}

export function addressVariable(service: GrpcServiceName | 'proxy'): string {
  return `${service.toUpperCase()}_ADDR`;
}

export function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}
