import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, INTERNAL_TOKEN_HEADER } from '@gw/kit';
import {
  AUTH_CACHE_UNTIL_EVENT,
  createUser,
  expectError,
  freePort,
  startGateway,
  waitFor,
  type Gateway,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What a recording edge was asked, as the front door passed it on. */
interface Passed {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
  closedEarly: boolean;
}

/**
 * A stand-in for the edge behind a front door, to see what the pipe passes and how it relays:
 * each request is recorded (its body as it arrives) and answered by the test's `answer`.
 */
class RecordingEdge {
  readonly passed: Passed[] = [];
  answer: (req: IncomingMessage, res: ServerResponse, passed: Passed) => void = (_req, res) =>
    res.end('recorded');
  private constructor(private readonly server: Server) {}

  static async start(): Promise<RecordingEdge> {
    const edge: RecordingEdge = new RecordingEdge(
      createServer((req, res) => {
        const passed: Passed = {
          method: req.method ?? '',
          url: req.url ?? '',
          rawHeaders: req.rawHeaders,
          body: '',
          closedEarly: false,
        };
        edge.passed.push(passed);
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (passed.body += chunk));
        res.on('close', () => (passed.closedEarly = !res.writableFinished));
        edge.answer(req, res, passed);
      }),
    );
    await new Promise<void>((resolve) => edge.server.listen(0, '127.0.0.1', resolve));
    return edge;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Every value of a header in raw headers, by name in any case. */
function valuesOf(rawHeaders: string[], name: string): string[] {
  return rawHeaders.filter((_, index) => index % 2 === 1 && rawHeaders[index - 1]?.toLowerCase() === name);
}

/**
 * The proxy on the public port, passing every request that is not an AI call to the edge
 * (docs/adr/0010): management routes answer as before, the edge learns the client address the
 * proxy computed and no other, and an edge that does not answer is a 503 in the spec's shape.
 */
describe('the proxy as the front door', () => {
  let gw: Gateway;
  let edgeUrl: string;
  let recorder: RecordingEdge;
  /** A front door passing to the recording edge. */
  let recorded: string;

  beforeAll(async () => {
    gw = await startGateway({ env: AUTH_CACHE_UNTIL_EVENT });
    edgeUrl = `http://${gw.env.EDGE_ADDR ?? ''}`;
    recorder = await RecordingEdge.start();
    recorded = `http://${await gw.startProxyReplica({ EDGE_ADDR: recorder.address })}`;
  });

  afterAll(async () => {
    await gw.stop();
    await recorder.close();
  });

  it('serves the management API, /healthz, the console and GET /v1/models through the edge', async () => {
    expect(new URL(gw.baseUrl).port).toBe(gw.env.GW_EDGE_PORT);
    const health = await gw.request('/healthz', { key: null });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', services: { proxy: 'serving' } });
    expect((await gw.request('/dashboard/status')).status).toBe(200);
    // A request with a body: a new account, then its key works through the front door.
    const user = await createUser(gw);
    expect((await gw.request('/dashboard/status', { key: user.key })).status).toBe(200);
    const models = await gw.request('/v1/models');
    expect(models.status).toBe(200);
    expect(await models.json()).toMatchObject({ object: 'list' });
    // The console as the edge itself serves it, headers and all.
    const front = await fetch(`${gw.baseUrl}/console/`);
    const direct = await fetch(`${edgeUrl}/console/`);
    expect(front.status).toBe(direct.status);
    expect(front.headers.get('content-type')).toBe(direct.headers.get('content-type'));
    expect(front.headers.get('content-security-policy')).toBe(direct.headers.get('content-security-policy'));
    expect(await front.text()).toBe(await direct.text());
    // The edge times and logs what the front door passes it; the proxy counts none of it.
    const scraped = await (await fetch(`http://${gw.metrics.get('proxy') ?? ''}/metrics`)).text();
    const served = scraped
      .split('\n')
      .filter((line) => line.startsWith('gw_http_request_duration_seconds_count'));
    expect(served.filter((line) => !line.includes('route="/internal/healthz"'))).toEqual([]);
  });

  it('answers its own /internal/ paths itself, never passing them on', async () => {
    const health = await fetch(`${gw.baseUrl}/internal/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', outbox: 0, staleKeyPools: 0 });
    const unknown = await fetch(`${recorded}/internal/nothing`);
    await expectError(unknown, 404, ErrorCode.NotFound);
    expect(recorder.passed.map((p) => p.url)).not.toContain('/internal/nothing');
  });

  it('tells the edge the client address it computed, and no address a client claims', async () => {
    const user = await createUser(gw, { extra: { AllowIPs: '203.0.113.7' } });
    const status = (base: string, headers: Record<string, string> = {}) =>
      gw.request('/dashboard/status', { key: user.key, base, headers });
    // The tests' address, 127.0.0.1, is not listed.
    await expectError(await status(gw.baseUrl), 403, ErrorCode.Forbidden, '127.0.0.1');
    // Neither the client header nor a made-up internal token from a client is believed.
    await expectError(
      await status(gw.baseUrl, {
        'x-gw-client': '203.0.113.7',
        [INTERNAL_TOKEN_HEADER]: 'not-the-token-but-long-enough',
      }),
      403,
      ErrorCode.Forbidden,
      '127.0.0.1',
    );
    // X-Forwarded-For from a peer the front door does not trust: the peer is the client.
    await expectError(
      await status(gw.baseUrl, { 'x-forwarded-for': '203.0.113.7' }),
      403,
      ErrorCode.Forbidden,
      '127.0.0.1',
    );
    // A front door behind a load balancer at 127.0.0.1 reads the client from X-Forwarded-For.
    const behindBalancer = `http://${await gw.startProxyReplica({ GW_TRUSTED_PROXIES: '127.0.0.1/32' })}`;
    expect((await status(behindBalancer, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    await expectError(
      await status(behindBalancer, { 'x-forwarded-for': '198.51.100.9' }),
      403,
      ErrorCode.Forbidden,
      '198.51.100.9',
    );
  });

  it('answers 503 in the error shape when the edge does not answer', async () => {
    const nowhere = `http://${await gw.startProxyReplica({ EDGE_ADDR: `127.0.0.1:${await freePort()}` })}`;
    const refused = await fetch(`${nowhere}/dashboard/status`, {
      headers: { authorization: `Bearer ${gw.rootKey}` },
    });
    await expectError(refused, 503, ErrorCode.Unavailable, "the gateway's API is unavailable");
  });

  it('passes method, path, query, Host and headers as they came, with its own token and client address', async () => {
    recorder.answer = (req, res) => req.on('end', () => res.end('ok'));
    const body = JSON.stringify({ Name: 'kept' });
    const answer = await new Promise<IncomingMessage>((resolve, reject) =>
      request(
        `${recorded}/x-users/some%20one?a=1&b=2`,
        {
          method: 'PATCH',
          headers: {
            host: 'gateway.example:8443',
            'x-custom': 'kept',
            'x-gw-client': '203.0.113.7',
            [INTERNAL_TOKEN_HEADER]: 'not-the-token-but-long-enough',
            'content-type': 'application/json',
          },
        },
        resolve,
      )
        .on('error', reject)
        .end(body),
    );
    expect(answer.statusCode).toBe(200);
    answer.resume();
    await new Promise((resolve) => answer.on('end', resolve));
    const passed = recorder.passed.at(-1);
    expect(passed?.method).toBe('PATCH');
    expect(passed?.url).toBe('/x-users/some%20one?a=1&b=2');
    expect(passed?.body).toBe(body);
    const raw = passed?.rawHeaders ?? [];
    expect(valuesOf(raw, 'host')).toEqual(['gateway.example:8443']);
    expect(valuesOf(raw, 'x-custom')).toEqual(['kept']);
    expect(valuesOf(raw, 'content-type')).toEqual(['application/json']);
    expect(valuesOf(raw, INTERNAL_TOKEN_HEADER)).toEqual([gw.env.GW_INTERNAL_TOKEN]);
    expect(valuesOf(raw, 'x-gw-client')).toEqual(['127.0.0.1']);
  });

  it('passes a request that asked to continue (curl over 1 MB) with its token and client address', async () => {
    recorder.answer = (req, res) => req.on('end', () => res.end('ok'));
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const client = request(
        `${recorded}/upload`,
        { method: 'POST', headers: { expect: '100-continue', 'x-gw-client': '203.0.113.7' } },
        resolve,
      );
      client.on('error', reject);
      client.on('continue', () => client.end('the body'));
    });
    expect(answer.statusCode).toBe(200);
    answer.resume();
    await new Promise((resolve) => answer.on('end', resolve));
    const passed = recorder.passed.at(-1);
    expect(passed?.body).toBe('the body');
    const raw = passed?.rawHeaders ?? [];
    expect(valuesOf(raw, 'expect')).toEqual([]);
    expect(valuesOf(raw, INTERNAL_TOKEN_HEADER)).toEqual([gw.env.GW_INTERNAL_TOKEN]);
    expect(valuesOf(raw, 'x-gw-client')).toEqual(['127.0.0.1']);
  });

  it('relays the status and headers as the edge gave them, and streams the answer both ways', async () => {
    let sendRest: () => void = () => undefined;
    recorder.answer = (req, res, passed) => {
      res.writeHead(418, { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'], 'x-edge': 'yes' });
      res.write('first;');
      sendRest = () => {
        // The whole request body arrived before the answer ends, after the client saw the first part.
        req.on('end', () => res.end(`rest:${passed.body}`));
      };
    };
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const client = request(`${recorded}/stream-me`, { method: 'POST' }, resolve);
      client.on('error', reject);
      client.write('one,');
      // The request is passed on as it comes: its first part reaches the edge before it ends.
      void waitFor(
        () => Promise.resolve(recorder.passed.at(-1)?.body === 'one,'),
        'the first part of the body at the edge',
      ).then(() => client.end('two'));
    });
    expect(answer.statusCode).toBe(418);
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(answer.headers['x-edge']).toBe('yes');
    expect(valuesOf(answer.rawHeaders, 'date')).toHaveLength(1);
    answer.setEncoding('utf8');
    let body = '';
    answer.on('data', (chunk: string) => {
      body += chunk;
      if (body === 'first;') {
        sendRest();
      }
    });
    await new Promise((resolve) => answer.on('end', resolve));
    expect(body).toBe('first;rest:one,two');
  });

  it('cuts the hop when the client leaves, and the client when the hop breaks', async () => {
    recorder.answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    };
    const leaving = await new Promise<IncomingMessage>((resolve, reject) =>
      request(`${recorded}/slow`, resolve).on('error', reject).end(),
    );
    const held = recorder.passed.at(-1);
    leaving.destroy();
    await waitFor(() => Promise.resolve(held?.closedEarly === true), 'the edge to see the hop cut');

    recorder.answer = (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial', () => req.socket.destroy());
    };
    const broken = await fetch(`${recorded}/breaks`);
    expect(broken.status).toBe(200);
    await expect(broken.text()).rejects.toThrow();
  });
});
