import {
  addressVariable,
  GRPC_SERVICES,
  localPorts,
  metricsAddressVariable,
  parsePortBase,
  splitAddress,
  type ServiceName,
} from '../../packages/kit/src/topology.js';

/** Every address `npm start` gives its processes and backing servers. */
export interface LaunchPorts {
  /** The public port, served by the proxy (the gateway's front door). */
  port: string;
  redisUrl: string;
  natsUrl: string;
  /** The embedded PostgreSQL's port (used when DATABASE_URL is unset). */
  postgresPort: number;
  /**
   * `<NAME>_ADDR` → host:port, for each gRPC service, the proxy (`<HOST>:<PORT>`) and the edge
   * behind it (EDGE_ADDR).
   */
  addresses: Record<string, string>;
  metricsAddress: (name: ServiceName) => string;
}

/**
 * The launcher's ports: each variable set on its own (PORT, HOST, `<NAME>_ADDR`, EDGE_ADDR,
 * REDIS_URL, NATS_URL, GW_POSTGRES_PORT, `<NAME>_METRICS_ADDR`) wins; the rest come from
 * GW_PORT_BASE's offsets, or the defaults without it (topology.ts). The proxy serves the public
 * `<HOST>:<PORT>`, so a PROXY_ADDR given to the launcher moves nothing. An Error names a bad value.
 */
export function launchPorts(source: NodeJS.ProcessEnv): LaunchPorts | Error {
  const base = parsePortBase(source.GW_PORT_BASE);
  if (base instanceof Error) {
    return base;
  }
  const ports = localPorts(base);
  const port = source.PORT ?? String(ports.public);
  if (!/^\d{1,5}$/.test(port)) {
    return new Error(`PORT must be a port number, got "${port}"`);
  }
  const host = source.HOST ?? '0.0.0.0';
  if (!/^[^\s:]+$/.test(host)) {
    return new Error(
      `HOST must be an IPv4 address or a host name (the proxy's PROXY_ADDR is HOST:PORT), got "${host}"`,
    );
  }
  const edge = source.EDGE_ADDR ?? ports.edge;
  if (!/^[^\s:]+:\d{1,5}$/.test(edge)) {
    return new Error(`EDGE_ADDR must be host:port, got "${edge}"`);
  }
  const postgresPort = source.GW_POSTGRES_PORT ?? String(ports.postgresPort);
  if (!/^\d{1,5}$/.test(postgresPort) || Number(postgresPort) === 0) {
    return new Error(`GW_POSTGRES_PORT must be a port number, got "${postgresPort}"`);
  }
  const addresses: Record<string, string> = {
    ...Object.fromEntries(
      GRPC_SERVICES.map((name) => {
        const variable = addressVariable(name);
        return [variable, source[variable] ?? ports.addresses[name]];
      }),
    ),
    PROXY_ADDR: `${host}:${port}`,
    EDGE_ADDR: edge,
  };
  return {
    port,
    redisUrl: source.REDIS_URL ?? ports.redisUrl,
    natsUrl: source.NATS_URL ?? ports.natsUrl,
    postgresPort: Number(postgresPort),
    addresses,
    metricsAddress: (name) => source[metricsAddressVariable(name)] ?? `127.0.0.1:${ports.metrics[name]}`,
  };
}

/**
 * Where a service listens: `<NAME>_ADDR` for gRPC services, EDGE_ADDR for the edge, and the
 * public HOST:PORT (its PROXY_ADDR) for the proxy; `variable` is the one that moves it.
 */
export function listenOf(
  addresses: LaunchPorts['addresses'],
  name: ServiceName,
): { host: string; port: number; variable: string } {
  if (name === 'edge') {
    return { ...splitAddress(addresses.EDGE_ADDR ?? ''), variable: 'EDGE_ADDR' };
  }
  const variable = addressVariable(name);
  return { ...splitAddress(addresses[variable] ?? ''), variable: name === 'proxy' ? 'PORT' : variable };
}

/** The edge's own PORT and HOST: EDGE_ADDR, behind the proxy. */
export function edgeListenEnv(addresses: LaunchPorts['addresses']): NodeJS.ProcessEnv {
  const { host, port } = listenOf(addresses, 'edge');
  return { HOST: host, PORT: String(port) };
}
