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

/**
 * Every port a local gateway listens on, as `npm start` and `npx gw` derive them. Without a base
 * they are the defaults above (the public port 8080, served by the proxy, the gateway's front
 * door; the edge behind it 8081; gRPC 50051–50056, metrics 9401–9408, Redis 6379, NATS 4222, the
 * embedded PostgreSQL 5433). With `GW_PORT_BASE` each is a fixed offset from it: the public port
 * +0, the edge +1, the gRPC services +2…+7 (in GRPC_SERVICES order), metrics +10…+17 (in
 * ALL_SERVICES order), Redis +20, NATS +21, PostgreSQL +22, so one variable moves the whole
 * gateway.
 */
export interface LocalPorts {
  /** The public port: the proxy listens there and passes what it does not serve to the edge. */
  public: number;
  /** host:port of each gRPC service and the proxy (on the public port). */
  addresses: Record<GrpcServiceName | 'proxy', string>;
  /** host:port of the edge, behind the proxy (its EDGE_ADDR). */
  edge: string;
  metrics: Record<ServiceName, number>;
  redisUrl: string;
  natsUrl: string;
  /** The embedded PostgreSQL `npm start` runs when DATABASE_URL is unset (on 127.0.0.1). */
  postgresPort: number;
}

export const PORT_BASE_SPAN = 23;
const PORT_BASE_MIN = 1024;
const PORT_BASE_MAX = 65535 - (PORT_BASE_SPAN - 1);

/** GW_PORT_BASE read exactly: undefined when unset or empty, an Error naming the range when bad. */
export function parsePortBase(value: string | undefined): number | undefined | Error {
  if (value === undefined || value.trim() === '') {
    return undefined;
  }
  const base = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!(base >= PORT_BASE_MIN && base <= PORT_BASE_MAX)) {
    return new Error(
      `GW_PORT_BASE must be a port number from ${PORT_BASE_MIN} to ${PORT_BASE_MAX} (it uses the ${PORT_BASE_SPAN} ports from there), got "${value}"`,
    );
  }
  return base;
}

export function localPorts(base: number | undefined): LocalPorts {
  if (base === undefined) {
    return {
      public: 8080,
      addresses: { ...DEFAULT_ADDRESSES, proxy: '127.0.0.1:8080' },
      edge: '127.0.0.1:8081',
      metrics: { ...LOCAL_METRICS_PORTS },
      redisUrl: 'redis://127.0.0.1:6379',
      natsUrl: 'nats://127.0.0.1:4222',
      postgresPort: 5433,
    };
  }
  const at = (offset: number) => `127.0.0.1:${base + offset}`;
  const addresses = { proxy: at(0) } as Record<GrpcServiceName | 'proxy', string>;
  GRPC_SERVICES.forEach((name, index) => (addresses[name] = at(2 + index)));
  const metrics = {} as Record<ServiceName, number>;
  ALL_SERVICES.forEach((name, index) => (metrics[name] = base + 10 + index));
  return {
    public: base,
    addresses,
    edge: at(1),
    metrics,
    redisUrl: `redis://${at(20)}`,
    natsUrl: `nats://${at(21)}`,
    postgresPort: base + 22,
  };
}
