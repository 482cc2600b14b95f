import { env, serviceEnv } from './config.js';
import { GrpcServer, type AsyncHandlers, type DependencyProbe } from './grpc.js';
import { logListening } from './listen.js';
import type { Logger } from './log.js';
import { addressVariable, DEFAULT_ADDRESSES, splitAddress, type GrpcServiceName } from './topology.js';
import type { ServiceDefinition } from '@grpc/grpc-js';

/** The env shape of a gRPC service: the variables every service reads plus its listen address. */
export function grpcServiceEnv(service: GrpcServiceName) {
  return { ...serviceEnv, [addressVariable(service)]: env.serviceAddress(service) };
}

export function listenAddress(service: GrpcServiceName, config: Record<string, unknown>): string {
  const value = config[addressVariable(service)];
  return typeof value === 'string' ? value : DEFAULT_ADDRESSES[service];
}

export interface RunningService {
  server: GrpcServer;
  port: number;
}

/** Binds a gRPC service; a thin helper so each main.ts stays wiring only. */
export async function startGrpcService<S>(args: {
  service: GrpcServiceName;
  address: string;
  token: string;
  log: Logger;
  definition?: ServiceDefinition;
  handlers?: AsyncHandlers<S>;
  /** The stores it cannot serve without, by name (health reports each). */
  dependencies?: Record<string, DependencyProbe>;
  /** Run after binding and before reporting SERVING (see GrpcServer): a replica is ready once warm. */
  warmUp?: () => Promise<unknown>;
}): Promise<RunningService> {
  const { host, port } = splitAddress(args.address);
  const server = new GrpcServer({
    host,
    port,
    token: args.token,
    log: args.log,
    ...(args.dependencies ? { dependencies: args.dependencies } : {}),
    ...(args.warmUp ? { warmUp: args.warmUp } : {}),
  });
  if (args.definition && args.handlers) {
    server.add<S>(args.definition, args.handlers);
  }
  // Listening once bound, as every HTTP server says it (listenHttp); serving once warm, when
  // grpc.health.v1 says SERVING.
  const bound = await server.start((port) => logListening(args.log, args.service, host, port));
  args.log.info({ address: `${host}:${bound}` }, `${args.service} serving`);
  return { server, port: bound };
}
