import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AddressList, type UpstreamAddressPolicy } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { FailureClass } from '../src/domain/key-health.js';
import { Cancellation } from '../src/transport/upstream/cancellation.js';
import { UpstreamClient, type UpstreamAttempt } from '../src/transport/upstream/http.js';

/** One upstream on 127.0.0.1 for one test, answering with `handle`, counting what it saw. */
interface TestUpstream {
  url: string;
  port: number;
  requests: number;
  connections: Set<Socket>;
  closed: number;
  /** Requests whose connection closed. */
  requestsClosed: number;
  server: Server;
}

async function startUpstream(
  handle: (req: IncomingMessage, res: ServerResponse, upstream: TestUpstream) => void,
): Promise<TestUpstream> {
  const server = createServer();
  const upstream: TestUpstream = {
    url: '',
    port: 0,
    requests: 0,
    connections: new Set(),
    closed: 0,
    requestsClosed: 0,
    server,
  };
  server.on('connection', (socket: Socket) => {
    upstream.connections.add(socket);
    socket.on('close', () => (upstream.closed += 1));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    upstream.requests += 1;
    req.socket.once('close', () => (upstream.requestsClosed += 1));
    handle(req, res, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.port = (server.address() as AddressInfo).port;
  upstream.url = `http://127.0.0.1:${upstream.port}`;
  return upstream;
}

const self = { ports: [], endpoints: [], hosts: [] };
const ROOT: UpstreamAddressPolicy = { rootPool: true, self };
const TENANT: UpstreamAddressPolicy = { rootPool: false, self };
/** undici hands a connection back to its pool one event-loop turn after its answer ended. */
const pooledAgain = () => new Promise<void>((resolve) => setImmediate(resolve));
const answerOk = (_req: IncomingMessage, res: ServerResponse) => res.end('{"ok":true}');

describe('UpstreamClient', () => {
  const started: Array<{ server: Server }> = [];
  const clients: UpstreamClient[] = [];
  const upstreamWith = async (handle: Parameters<typeof startUpstream>[0]) => {
    const upstream = await startUpstream(handle);
    started.push(upstream);
    return upstream;
  };
  const newClient = () => {
    const client = new UpstreamClient({ idleSocketMs: 4_000 });
    clients.push(client);
    return client;
  };
  const send = (
    client: UpstreamClient,
    url: string,
    policy = ROOT,
    options: { timeoutMs?: number; cancel?: Cancellation } = {},
  ) =>
    client.send(
      {
        url: new URL(`${url}/v1/chat/completions`),
        headers: {},
        method: 'POST',
        body: [Buffer.from('{}')],
        extraHeaders: {},
      },
      options.timeoutMs ?? 5_000,
      options.cancel ?? new Cancellation(),
      policy,
    );
  const bodyOf = async (attempt: UpstreamAttempt) => {
    if (!attempt.ok) {
      throw new Error(`no answer: ${String(attempt.error)}`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of attempt.response.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString();
  };
  const codeOf = (attempt: UpstreamAttempt) =>
    attempt.ok ? undefined : (attempt.error as { code?: string }).code;

  afterEach(async () => {
    for (const client of clients.splice(0)) {
      client.close();
    }
    for (const { server } of started.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('counts no headers within the timeout as a timeout, and closes the request', async () => {
    const upstream = await upstreamWith(() => undefined);
    const attempt = await send(newClient(), upstream.url, ROOT, { timeoutMs: 200 });
    expect(attempt).toMatchObject({ ok: false, failure: FailureClass.Timeout });
    await waitFor(async () => upstream.requestsClosed === 1, 'the upstream sees the request closed');
  });

  it('stops a request cancelled before its headers: a connection failure, the request closed', async () => {
    const upstream = await upstreamWith(() => undefined);
    const cancel = new Cancellation();
    const pending = send(newClient(), upstream.url, ROOT, { cancel });
    await waitFor(async () => upstream.requests === 1, 'the request reaches the upstream');
    cancel.cancel();
    const attempt = await pending;
    expect(attempt).toMatchObject({ ok: false, failure: FailureClass.Connection });
    expect(attempt.ok ? '' : String(attempt.error)).toContain('cancelled');
    await waitFor(async () => upstream.requestsClosed === 1, 'the upstream sees the request closed');
  });

  it('sends the body parts in order with their length, and reads the answer', async () => {
    let received = '';
    const upstream = await upstreamWith((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received = `${req.headers['content-length']}:${Buffer.concat(chunks).toString()}`;
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      });
    });
    const attempt = await newClient().send(
      {
        url: new URL(`${upstream.url}/v1/embeddings`),
        headers: { authorization: 'Bearer k' },
        method: 'POST',
        body: [Buffer.from('{"a":'), Buffer.from('1}')],
        extraHeaders: { 'content-type': 'application/json' },
      },
      5_000,
      new Cancellation(),
      ROOT,
    );
    expect(attempt.ok && attempt.response.statusCode).toBe(200);
    expect(attempt.ok && attempt.response.headers['content-type']).toBe('application/json');
    expect(await bodyOf(attempt)).toBe('{"ok":true}');
    expect(received).toBe('7:{"a":1}');
  });

  it('hands on the HTTP chunks of one read as one piece, bytes and order kept', async () => {
    const events = Array.from({ length: 20 }, (_, index) => `data: {"n":${index}}\n\n`);
    const upstream = await upstreamWith((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Corked: every event its own HTTP chunk, all of them in one write to the socket.
      res.cork();
      for (const event of events) {
        res.write(event);
      }
      res.end();
    });
    const attempt = await send(newClient(), upstream.url);
    if (!attempt.ok) {
      throw new Error(`no answer: ${String(attempt.error)}`);
    }
    // Read as the relay reads it: 'data' events (an async iterator would join what is buffered).
    const pieces: string[] = [];
    const { body } = attempt.response;
    body.on('data', (chunk: Buffer) => pieces.push(chunk.toString()));
    await new Promise((resolve) => body.on('end', resolve));
    expect(pieces.join('')).toBe(events.join(''));
    // One piece through the relay, the meter and the client's socket, not twenty.
    expect(pieces).toHaveLength(1);
  });

  it('does not send again a request whose new connection is reset: that is the upstream failing', async () => {
    const upstream = await upstreamWith((req) => req.socket.destroy());
    const attempt = await send(newClient(), upstream.url);
    expect(attempt).toMatchObject({ ok: false, failure: FailureClass.Connection });
    expect(upstream.requests).toBe(1);
  });

  it('sends once more, on a new connection, a request whose kept-alive connection hangs up', async () => {
    const served = new Set<Socket>();
    const upstream = await upstreamWith((req, res) => {
      if (served.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      res.end('{"ok":true}');
    });
    const client = newClient();
    expect(await bodyOf(await send(client, upstream.url))).toBe('{"ok":true}');
    await pooledAgain();
    expect(await bodyOf(await send(client, upstream.url))).toBe('{"ok":true}');
    expect(upstream.requests).toBe(3);
    expect(upstream.connections.size).toBe(2);
  });

  it("refuses a tenant's name that resolves to loopback when connecting, even after root's pool reached it", async () => {
    const upstream = await upstreamWith(answerOk);
    const named = `http://localhost:${upstream.port}`;
    const client = newClient();
    expect(await bodyOf(await send(client, named, ROOT))).toBe('{"ok":true}');
    const refused = await send(client, named, TENANT);
    expect(refused).toMatchObject({ ok: false, failure: FailureClass.Connection });
    expect(codeOf(refused)).toBe('EGWREFUSED');
    expect(upstream.requests).toBe(1);
    expect(upstream.connections.size).toBe(1);
  });

  it("keeps root's and tenants' connections apart, and closes them all on close()", async () => {
    const upstream = await upstreamWith(answerOk);
    const privateRanges: UpstreamAddressPolicy = { ...TENANT, tenantPrivate: AddressList.of('127.0.0.1') };
    const client = newClient();
    for (const policy of [ROOT, privateRanges, ROOT, privateRanges]) {
      expect(await bodyOf(await send(client, upstream.url, policy))).toBe('{"ok":true}');
      await pooledAgain();
    }
    expect(upstream.connections.size).toBe(2);
    client.close();
    await waitFor(async () => upstream.closed === 2, 'both connections closed');
  });
});
