import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServing } from '../src/grpc-client.js';
import { GrpcServer } from '../src/grpc.js';
import { INTERNAL_TOKEN_HEADER } from '../src/internal-token.js';
import { createLogger } from '../src/log.js';

const TOKEN = 'the-internal-token-of-this-test';

/** A one-RPC service written by hand, so the test does not depend on any service's contract. */
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString()),
};
const echoDefinition: grpc.ServiceDefinition = {
  echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
const EchoClient = grpc.makeGenericClientConstructor(echoDefinition, 'Echo');

function callEcho(address: string, token: string): Promise<grpc.status> {
  const client = new EchoClient(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set(INTERNAL_TOKEN_HEADER, token);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      echoDefinition.echo!.path,
      json.serialize,
      json.deserialize,
      { said: 'hello' },
      metadata,
      (error) => {
        client.close();
        resolve(error ? error.code : grpc.status.OK);
      },
    );
  });
}

describe('GrpcServer internal token', () => {
  let server: GrpcServer;
  let address: string;

  beforeAll(async () => {
    server = new GrpcServer({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      log: createLogger('test', 'silent'),
    });
    server.add(echoDefinition, { echo: (request: unknown) => Promise.resolve(request) });
    address = `127.0.0.1:${await server.start()}`;
  });

  afterAll(() => server.stop());

  it('answers grpc.health.v1 without the token, as an orchestrator probe asks', async () => {
    expect(await isServing(address, '')).toBe(true);
    expect(await isServing(address, 'not-the-token')).toBe(true);
  });

  it('refuses every other call without the right token', async () => {
    expect(await callEcho(address, 'not-the-token')).toBe(grpc.status.UNAUTHENTICATED);
    expect(await callEcho(address, TOKEN)).toBe(grpc.status.OK);
  });
});
