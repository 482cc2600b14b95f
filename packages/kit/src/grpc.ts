import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { health } from '@gw/proto';
import type { KnownKeys } from './grpc-client.js';
import { toServiceError } from './grpc-errors.js';
import { newId } from './ids.js';
import { INTERNAL_TOKEN_HEADER, sameSecret } from './internal-token.js';
import { REQUEST_ID_HEADER, runWithContext, type Logger } from './log.js';
import { GrpcServerMetrics } from './metrics/grpc.js';
import { serviceMetrics, type Metrics } from './metrics/registry.js';

/** A service implementation written as plain async functions, one per RPC. */
export type AsyncHandlers<S> = {
  [K in KnownKeys<S>]: S[K] extends grpc.handleUnaryCall<infer Req, infer Res>
    ? (request: Req) => Promise<Res>
    : never;
};

/**
 * grpc.health.v1 answers without the token: orchestrators probe it natively (a Kubernetes gRPC
 * probe cannot send metadata) and it tells nothing but SERVING or NOT_SERVING.
 */
const TOKEN_FREE_PREFIX = '/grpc.health.v1.Health/';

function tokenInterceptor(token: string): grpc.ServerInterceptor {
  return (method, call) => {
    if (method.path.startsWith(TOKEN_FREE_PREFIX)) {
      return new grpc.ServerInterceptingCall(call);
    }
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            const given = metadata.get(INTERNAL_TOKEN_HEADER)[0];
            if (typeof given === 'string' && sameSecret(given, token)) {
              nextMetadata(metadata);
            } else {
              call.sendStatus({
                code: grpc.status.UNAUTHENTICATED,
                details: 'internal token missing or wrong',
              });
            }
          },
        });
      },
    });
  };
}

const ServingStatus = health.HealthCheckResponse_ServingStatus;

/** A store the service cannot serve without: resolves when it answers, rejects when it does not. */
export type DependencyProbe = () => Promise<unknown>;

/** How long a dependency probe may take: the callers' own deadline is 2 s. */
const PROBE_DEADLINE_MS = 1_000;

async function answers(probe: DependencyProbe): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_DEADLINE_MS);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A gRPC server with the internal-token check on every call, request ids carried into the
 * handler's async context, AppError mapped to status + `gw-error-code`, and grpc.health.v1.
 */
export class GrpcServer {
  private readonly server: grpc.Server;
  private readonly statuses = new Map<string, health.HealthCheckResponse_ServingStatus>([
    ['', ServingStatus.NOT_SERVING],
  ]);

  private readonly metrics: GrpcServerMetrics;

  constructor(
    private readonly options: {
      host: string;
      port: number;
      token: string;
      log: Logger;
      metrics?: Metrics;
      /**
       * Stores by name (`postgres`, `redis`): Check('') is SERVING only while each answers within
       * 1 s, and Check('<name>') answers for that store alone, so health says which part is down.
       */
      dependencies?: Record<string, DependencyProbe>;
      /**
       * What the first requests need made ready (connections opened, statements run once): the
       * server binds, reports NOT_SERVING while this runs, and SERVING once it resolved.
       */
      warmUp?: () => Promise<unknown>;
    },
  ) {
    this.metrics = new GrpcServerMetrics(options.metrics ?? serviceMetrics());
    this.server = new grpc.Server({ interceptors: [tokenInterceptor(options.token)] });
    this.server.addService(health.HealthService, {
      check: (
        call: grpc.ServerUnaryCall<health.HealthCheckRequest, health.HealthCheckResponse>,
        callback: grpc.sendUnaryData<health.HealthCheckResponse>,
      ) => {
        void this.status(call.request.service).then((status) => {
          if (status === undefined) {
            callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
          } else {
            callback(null, { status });
          }
        });
      },
      watch: (call: grpc.ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>) => {
        // Watch is part of the standard; we answer the current status once and end the stream.
        call.write({ status: this.statuses.get(call.request.service) ?? ServingStatus.SERVICE_UNKNOWN });
        call.end();
      },
    });
  }

  /** A service's status; NOT_SERVING while a dependency does not answer (only once started). */
  private async status(service: string): Promise<health.HealthCheckResponse_ServingStatus | undefined> {
    const dependencies = this.options.dependencies ?? {};
    const probe = dependencies[service];
    if (probe) {
      return (await answers(probe)) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    }
    const status = this.statuses.get(service);
    if (status !== ServingStatus.SERVING) {
      return status;
    }
    const up = await Promise.all(Object.values(dependencies).map(answers));
    return up.every(Boolean) ? status : ServingStatus.NOT_SERVING;
  }

  add<S>(definition: grpc.ServiceDefinition, handlers: AsyncHandlers<S>): this {
    const implementation: grpc.UntypedServiceImplementation = {};
    const table = handlers as Record<string, (request: unknown) => Promise<unknown>>;
    for (const name of Object.keys(definition)) {
      const handler = table[name];
      if (!handler) {
        // A declared RPC without a handler stops the process at start.
        throw new Error(`no handler for RPC ${name}`);
      }
      const [, service = '', method = name] = definition[name]?.path.split('/') ?? [];
      implementation[name] = (
        call: grpc.ServerUnaryCall<unknown, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        const requestId = String(call.metadata.get(REQUEST_ID_HEADER)[0] ?? newId('request'));
        const started = performance.now();
        const deadline = Number(call.getDeadline());
        runWithContext({ requestId, ...(Number.isFinite(deadline) ? { deadline } : {}) }, () => {
          handler(call.request).then(
            (response) => {
              this.metrics.observe(service, method, grpc.status.OK, (performance.now() - started) / 1000);
              callback(null, response);
            },
            (error: unknown) => {
              const failure = toServiceError(error, this.options.log);
              const code = failure.code ?? grpc.status.UNKNOWN;
              this.metrics.observe(service, method, code, (performance.now() - started) / 1000);
              callback(failure);
            },
          );
        });
      };
      if (service) {
        this.statuses.set(service, ServingStatus.NOT_SERVING);
      }
    }
    this.server.addService(definition, implementation);
    return this;
  }

  /**
   * Binds, warms up, then marks every service SERVING and resolves with the bound port.
   * `onBound` hears the port as soon as it is bound, before the warm-up, which may take a while.
   */
  async start(onBound?: (port: number) => void): Promise<number> {
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(
        `${this.options.host}:${this.options.port}`,
        grpc.ServerCredentials.createInsecure(),
        (error, bound) => (error ? reject(error) : resolve(bound)),
      );
    });
    onBound?.(port);
    await this.options.warmUp?.();
    for (const name of this.statuses.keys()) {
      this.statuses.set(name, ServingStatus.SERVING);
    }
    return port;
  }

  /** Reports NOT_SERVING, lets in-flight calls finish (up to graceMs), then closes. */
  async stop(graceMs = 5_000): Promise<void> {
    for (const name of this.statuses.keys()) {
      this.statuses.set(name, ServingStatus.NOT_SERVING);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
