import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ERROR_CODE_METADATA, ErrorCode, RETRY_AFTER_METADATA } from '../src/errors.js';
import { createGrpcClient } from '../src/grpc-client.js';
import { GrpcServer } from '../src/grpc.js';
import { createLogger } from '../src/log.js';

const TOKEN = 'the-internal-token-of-this-test';

/** A one-RPC service written by hand, so the test does not depend on any service's contract. */
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString()),
};
const failDefinition: grpc.ServiceDefinition = {
  fail: {
    path: '/test.Fail/Fail',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
const FailClient = grpc.makeGenericClientConstructor(failDefinition, 'Fail');
interface FailCaller {
  fail(request: { name: string }): Promise<unknown>;
  close(): void;
}

/** What the server raises, by name: each code's details as the domain gives them. */
const RAISED: Record<string, AppError> = {
  rateLimited: new AppError(
    ErrorCode.RateLimited,
    'Rate limit reached for requests per minute (RPM): limit 3.',
    {
      retryAfterSeconds: 42,
      windows: {
        requests: { limit: 3, remaining: 0, resetMs: 41_250 },
        tokens: { limit: 1_000_000, remaining: 999_750, resetMs: 6_000 },
      },
    },
  ),
  rateLimitedWithoutWindows: new AppError(ErrorCode.RateLimited, 'too many failed authentications', {
    retryAfterSeconds: 7,
  }),
  invalidField: new AppError(ErrorCode.InvalidRequest, 'Email must be a valid address', { field: 'email' }),
  taken: new AppError(ErrorCode.Conflict, 'Name is already taken', { field: 'name' }),
  down: new AppError(ErrorCode.Unavailable, 'Sign-up is unavailable', {
    retryAfterSeconds: 1.5,
    reason: 'SIGN_OWNER is missing or disabled',
  }),
  plain: new AppError(ErrorCode.NotFound, 'no such account'),
};

async function failureOf(client: FailCaller, name: string): Promise<AppError> {
  const error = await client.fail({ name }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof AppError)) {
    throw new Error(`expected an AppError, got ${String(error)}`);
  }
  return error;
}

describe('AppError across gRPC (GrpcServer → createGrpcClient)', () => {
  let server: GrpcServer;
  let client: FailCaller;

  beforeAll(async () => {
    server = new GrpcServer({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      log: createLogger('test', 'silent'),
    });
    server.add(failDefinition, {
      fail: (request: { name: string }) => Promise.reject(RAISED[request.name] ?? new Error('no such case')),
    });
    const address = `127.0.0.1:${await server.start()}`;
    client = createGrpcClient(FailClient, address, TOKEN) as unknown as FailCaller;
  });

  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it.each(Object.keys(RAISED))('rebuilds %s with its code, message and typed details', async (name) => {
    const raised = RAISED[name]!;
    const received = await failureOf(client, name);
    expect({ code: received.code, message: received.message, details: received.details }).toEqual({
      code: raised.code,
      message: raised.message,
      details: raised.details,
    });
  });
});

describe('AppError from a peer of the release before the details trailer', () => {
  let server: grpc.Server;
  let client: FailCaller;

  beforeAll(async () => {
    // Such a peer sent the code and `gw-retry-after` only.
    server = new grpc.Server();
    server.addService(failDefinition, {
      fail: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const metadata = new grpc.Metadata();
        metadata.set(ERROR_CODE_METADATA, ErrorCode.RateLimited);
        metadata.set(RETRY_AFTER_METADATA, '9');
        callback({ code: grpc.status.RESOURCE_EXHAUSTED, details: 'slow down', metadata });
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      );
    });
    client = createGrpcClient(FailClient, `127.0.0.1:${port}`, TOKEN) as unknown as FailCaller;
  });

  afterAll(() => {
    client.close();
    server.forceShutdown();
  });

  it('keeps its Retry-After as retryAfterSeconds', async () => {
    const received = await failureOf(client, 'any');
    expect({ code: received.code, message: received.message, details: received.details }).toEqual({
      code: ErrorCode.RateLimited,
      message: 'slow down',
      details: { retryAfterSeconds: 9 },
    });
  });
});
