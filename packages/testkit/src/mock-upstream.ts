import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { anthropicError, answerMessages } from './mock-anthropic.js';
import { answerCall } from './mock-answers.js';
import { parseMultipart, parseObject } from './mock-bodies.js';
import { serveRealtimeSession } from './mock-realtime.js';

/**
 * A local upstream for tests (node:http), OpenAI-style (chat completions as JSON and SSE,
 * completions, embeddings, models, …) and Anthropic's Messages API (`x-api-key`: messages as JSON
 * and SSE events, count_tokens, errors in Anthropic's shape). What it does is chosen per key (the
 * Bearer secret, `api-key` or `x-api-key`).
 */
export interface Behaviour {
  /** Answer with this status and an error body instead of serving. */
  status?: number;
  retryAfter?: string;
  /** Accept the request and never send headers. */
  hang?: boolean;
  /** Stream: number of content chunks and the pause before each. */
  chunks?: number;
  chunkDelayMs?: number;
  /** Usage reported (stream: only when include_usage was asked for). */
  usage?: { prompt_tokens: number; completion_tokens: number; cached?: number; reasoning?: number };
  /** Stream: leave out the usage chunk even when asked for. */
  omitUsage?: boolean;
  /** Stream: reset the connection after this many content chunks. */
  resetAfter?: number;
  /** JSON: pad the answer's content to about this many bytes (usage stays at the end). */
  answerBytes?: number;
  /** Wait this long before sending any header. */
  headersDelayMs?: number;
  /** The error body sent with `status` (default: a generic mock error). */
  errorBody?: unknown;
  /** Realtime: on `response.create`, send this many bytes of audio deltas, honouring back-pressure. */
  floodBytes?: number;
  /** Messages API: the usage reported (over the mock's defaults). */
  anthropicUsage?: Partial<{
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  }>;
}

export interface Recorded {
  key: string;
  method: string;
  path: string;
  /** The request target exactly as it arrived (no dot segments resolved, nothing decoded). */
  rawPath: string;
  /** The query string, with its `?` (or ''). */
  search: string;
  headers: IncomingMessage['headers'];
  /** Messages API: the `anthropic-version` received (undefined when none came). */
  anthropicVersion?: string;
  body: Record<string, unknown>;
  at: number;
  /** When the last byte was written (undefined while running or when cut). */
  finishedAt?: number;
  /** When the proxy closed the connection before we finished. */
  abortedAt?: number;
}

export class MockUpstream {
  readonly requests: Recorded[] = [];
  /** Realtime sessions currently open on the mock. */
  realtimeOpen = 0;
  /** Every client frame a realtime session received. */
  readonly realtimeFrames: Array<Record<string, unknown>> = [];
  private readonly sockets = new WebSocketServer({ noServer: true });
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly open = new Set<ServerResponse>();
  /** Sockets that have served a request: the keep-alive connections a client may reuse. */
  private readonly usedSockets = new Set<Socket>();
  /** Sockets to hang up on at their next request, as an idle timeout racing a reuse does. */
  private readonly closing = new WeakSet<Socket>();
  /** How many requests were hung up on that way. */
  hungUp = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /**
   * Listens on 127.0.0.1 only (test traffic stays on loopback): root's pool may use loopback
   * Providers, except the gateway's own ports (docs/decisions.md §7).
   */
  static async start(): Promise<MockUpstream> {
    const host = '127.0.0.1';
    const holder: { mock?: MockUpstream } = {};
    const server = createServer((req, res) => void holder.mock?.handle(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      holder.mock?.upgrade(req, socket, head),
    );
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    holder.mock = new MockUpstream(server, `http://${host}:${(server.address() as AddressInfo).port}`);
    return holder.mock;
  }

  /**
   * Every keep-alive connection that served a request so far hangs up (no answer) on its next
   * request: what a client sees when the server's idle timeout closes a socket just as it is
   * reused ("socket hang up"). New connections are served as usual.
   */
  hangUpIdleSockets(): void {
    for (const socket of this.usedSockets) {
      this.closing.add(socket);
    }
  }

  set(key: string, behaviour: Behaviour): void {
    this.behaviours.set(key, behaviour);
  }

  for(key: string): Recorded[] {
    return this.requests.filter((request) => request.key === key);
  }

  async stop(): Promise<void> {
    for (const client of this.sockets.clients) {
      client.terminate();
    }
    for (const res of this.open) {
      res.destroy();
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * `GET /v1/realtime`: session.created on open; response.create → response.done with usage;
   * session.update → session.updated.
   */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://mock');
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const model = url.searchParams.get('model') ?? '';
    this.requests.push({
      key,
      method: 'GET',
      path: url.pathname,
      rawPath: req.url ?? '',
      search: url.search,
      headers: req.headers,
      body: { model },
      at: Date.now(),
    });
    const behaviour = this.behaviours.get(key) ?? {};
    if (behaviour.status) {
      socket.end(`HTTP/1.1 ${behaviour.status} Mock\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      return;
    }
    this.sockets.handleUpgrade(req, socket, head, (ws) => {
      this.realtimeOpen += 1;
      ws.on('close', () => {
        this.realtimeOpen -= 1;
      });
      serveRealtimeSession(ws, model, behaviour, this.realtimeFrames);
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closing.has(req.socket)) {
      this.hungUp += 1;
      req.socket.destroy();
      return;
    }
    if (!this.usedSockets.has(req.socket)) {
      this.usedSockets.add(req.socket);
      req.socket.once('close', () => this.usedSockets.delete(req.socket));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) {
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://mock');
    // Bearer for standard and Vertex AI (an access token), the api-key header for Azure OpenAI, x-api-key
    // for anthropic.
    const apiKey = req.headers['api-key'];
    const anthropicKey = req.headers['x-api-key'];
    const anthropic = typeof anthropicKey === 'string';
    const key =
      /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ??
      (typeof apiKey === 'string' ? apiKey : anthropic ? anthropicKey : '');
    const version = req.headers['anthropic-version'];
    const type = req.headers['content-type'] ?? '';
    const form = type.includes('x-www-form-urlencoded');
    const multipart = type.toLowerCase().startsWith('multipart/form-data');
    const record: Recorded = {
      key,
      method: req.method ?? 'GET',
      path: url.pathname,
      rawPath: req.url ?? '',
      search: url.search,
      headers: req.headers,
      anthropicVersion: typeof version === 'string' ? version : undefined,
      body: !text
        ? {}
        : multipart
          ? await parseMultipart(type, Buffer.concat(chunks))
          : form
            ? Object.fromEntries(new URLSearchParams(text))
            : parseObject(text),
      at: Date.now(),
    };
    this.requests.push(record);
    this.open.add(res);
    res.on('close', () => {
      this.open.delete(res);
      if (!res.writableFinished) {
        record.abortedAt = Date.now();
      }
    });
    res.on('finish', () => {
      record.finishedAt = Date.now();
    });

    const behaviour = this.behaviours.get(key) ?? {};
    if (behaviour.hang) {
      return;
    }
    if (behaviour.status) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (behaviour.retryAfter) {
        headers['retry-after'] = behaviour.retryAfter;
      }
      res.writeHead(behaviour.status, headers).end(
        JSON.stringify(
          behaviour.errorBody ??
            (anthropic
              ? anthropicError(behaviour.status)
              : {
                  error: {
                    message: `mock ${behaviour.status}`,
                    type: 'mock',
                    code: String(behaviour.status),
                  },
                }),
        ),
      );
      return;
    }
    if (behaviour.headersDelayMs) {
      await new Promise((resolve) => setTimeout(resolve, behaviour.headersDelayMs));
    }
    // Vertex AI's token endpoint: a JWT-bearer assertion in, `tok-<iss>` out.
    if (record.path === '/token') {
      const claims = JSON.parse(
        Buffer.from(String(record.body.assertion).split('.')[1] ?? '', 'base64url').toString('utf8'),
      ) as { iss: string };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: `tok-${claims.iss}`, expires_in: 3600, token_type: 'Bearer' }));
      return;
    }
    // Azure OpenAI deployments and Vertex AI's OpenAI-compatible endpoints serve the same calls.
    const served =
      /^\/openai\/deployments\/[^/]+(\/.*)$/.exec(record.path)?.[1] ??
      /\/endpoints\/openapi(\/.*)$/.exec(record.path)?.[1];
    const path = served ? `/v1${served}` : record.path;
    const model = typeof record.body.model === 'string' ? record.body.model : 'mock-model';
    if (anthropic && (path === '/v1/messages' || path === '/v1/messages/count_tokens')) {
      await answerMessages(res, { path, model, key, body: record.body }, behaviour);
      return;
    }
    await answerCall(res, { path, model, key, body: record.body }, behaviour);
  }
}
