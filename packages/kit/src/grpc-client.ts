import * as grpc from '@grpc/grpc-js';
import { health } from '@gw/proto';
import { fromServiceError } from './grpc-errors.js';
import { INTERNAL_TOKEN_HEADER } from './internal-token.js';
import { currentRequestId, REQUEST_ID_HEADER } from './log.js';

const DEFAULT_DEADLINE_MS = 2_000;

/** The named members of a type (a generated client also has a string index signature). */
export type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

const ServingStatus = health.HealthCheckResponse_ServingStatus;

type UnaryMethod<F> = F extends (
  request: infer Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: infer Res) => void,
) => grpc.ClientUnaryCall
  ? (request: Req, options?: { deadlineMs?: number }) => Promise<Res>
  : never;

/** A generated client with every unary RPC as a promise-returning function. */
export type PromiseClient<C> = {
  [K in KnownKeys<C> as UnaryMethod<C[K]> extends never ? never : K]: UnaryMethod<C[K]>;
} & { close(): void };

interface GeneratedClientConstructor<C> {
  new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions): C;
  service: grpc.ServiceDefinition;
}

/**
 * Creates a client that sends the internal token and the current request id on every call,
 * applies a deadline, and lets grpc-js retry on UNAVAILABLE only (transparent retry policy).
 */
export function createGrpcClient<C extends grpc.Client>(
  Client: GeneratedClientConstructor<C>,
  address: string,
  token: string,
  defaultDeadlineMs = DEFAULT_DEADLINE_MS,
): PromiseClient<C> {
  const definition = Client.service;
  const services = [...new Set(Object.values(definition).map((method) => method.path.split('/')[1] ?? ''))];
  const serviceConfig = {
    methodConfig: [
      {
        name: services.map((service) => ({ service })),
        retryPolicy: {
          maxAttempts: 3,
          initialBackoff: '0.1s',
          maxBackoff: '1s',
          backoffMultiplier: 2,
          retryableStatusCodes: ['UNAVAILABLE'],
        },
      },
    ],
  };
  const client = new Client(address, grpc.credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify(serviceConfig),
    // grpc-js waits 1 s, then up to 2 min (×1.6, jittered) between reconnects: a restarted
    // service would stay unreachable for seconds after it listens again. Bounded to 250 ms.
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 250,
    interceptors: [
      (options, nextCall) =>
        new grpc.InterceptingCall(nextCall(options), {
          start: (metadata, listener, next) => {
            metadata.set(INTERNAL_TOKEN_HEADER, token);
            const requestId = currentRequestId();
            if (requestId) {
              metadata.set(REQUEST_ID_HEADER, requestId);
            }
            next(metadata, listener);
          },
        }),
    ],
  });
  const wrapped: Record<string, unknown> = { close: () => client.close() };
  const methods = client as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>;
  for (const name of Object.keys(definition)) {
    if (definition[name]?.responseStream || definition[name]?.requestStream) {
      continue;
    }
    wrapped[name] = (request: unknown, options?: { deadlineMs?: number }) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + (options?.deadlineMs ?? defaultDeadlineMs);
        methods[name]?.call(
          client,
          request,
          new grpc.Metadata(),
          { deadline },
          (error: grpc.ServiceError | null, response: unknown) => {
            if (error) {
              reject(fromServiceError(error));
            } else {
              resolve(response);
            }
          },
        );
      });
  }
  return wrapped as PromiseClient<C>;
}

/**
 * Asks a gRPC server (grpc.health.v1 Check) about one of its services, or one of the stores it
 * depends on (`postgres`); `unreachable` when it does not answer or knows no such name.
 */
export async function servingStatus(
  address: string,
  token: string,
  service = '',
  deadlineMs = 1_500,
): Promise<'serving' | 'not_serving' | 'unreachable'> {
  const client = createGrpcClient(health.HealthClient, address, token, deadlineMs);
  try {
    const response = await client.check({ service });
    return response.status === ServingStatus.SERVING ? 'serving' : 'not_serving';
  } catch {
    return 'unreachable';
  } finally {
    client.close();
  }
}

/** Asks a gRPC server whether it is serving (grpc.health.v1 Check on the empty service name). */
export async function isServing(address: string, token: string, deadlineMs = 1_500): Promise<boolean> {
  return (await servingStatus(address, token, '', deadlineMs)) === 'serving';
}
