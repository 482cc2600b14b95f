import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode, portOf, type UpstreamAddressPolicy } from '@gw/kit';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { classifyStatus, FailureClass } from './domain/key-health.js';
import { isModelAllowed } from './domain/patterns.js';
import type { PoolKey } from './domain/pool.js';
import { forwardableRequestHeaders, standardTarget } from './domain/providers.js';
import { planRoute, type RouteStep } from './domain/route-plan.js';
import { parseJson } from './domain/sse.js';
import { readUsage, toUsageEvent } from './domain/usage.js';
import { recordFailure, trustedCaller, upstreamPolicy, type RelayDeps } from './relay.js';
import { guardedLookup, refuseLiteralHost } from './transport/upstream.js';

export const REALTIME_PATH = '/v1/realtime';

const sockets = new WebSocketServer({ noServer: true });

/** Answers an upgrade request with a plain HTTP error in the spec's shape. */
function refuse(socket: Duplex, status: number, type: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { message, type, code } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

type Frame = [data: RawData, isBinary: boolean];
type UpstreamSocket =
  | { ok: true; socket: WebSocket; takeEarlyFrames: () => Frame[] }
  | { ok: false; status?: number; failure?: FailureClass };

/** Opens the upstream socket; resolves once it is open, refused (with its status) or timed out. */
function openUpstream(
  key: PoolKey,
  model: string,
  search: URLSearchParams,
  headers: Record<string, string>,
  timeoutMs: number,
  policy: UpstreamAddressPolicy,
): Promise<UpstreamSocket> {
  const query = new URLSearchParams(search);
  query.set('model', model);
  const target = standardTarget(key, REALTIME_PATH, `?${query.toString()}`);
  target.url.protocol = target.url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (refuseLiteralHost(target.url, policy)) {
    return Promise.resolve({ ok: false, failure: FailureClass.Connection });
  }
  return new Promise((resolve) => {
    const upstream = new WebSocket(target.url, {
      headers: { ...headers, ...target.headers },
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      lookup: guardedLookup(policy, portOf(target.url)),
    });
    // Frames that arrive with the handshake are emitted before our caller resumes: keep them.
    const early: Frame[] = [];
    const keep = (data: RawData, isBinary: boolean) => early.push([data, isBinary]);
    upstream.on('message', keep);
    upstream.once('open', () =>
      resolve({
        ok: true,
        socket: upstream,
        takeEarlyFrames: () => {
          upstream.off('message', keep);
          return early.splice(0);
        },
      }),
    );
    upstream.once('unexpected-response', (_request, response) => {
      response.resume();
      upstream.terminate();
      resolve({ ok: false, status: response.statusCode ?? 502 });
    });
    upstream.once('error', (error) => {
      resolve({
        ok: false,
        failure: /timeout/i.test(String(error)) ? FailureClass.Timeout : FailureClass.Connection,
      });
    });
  });
}

function frameText(data: RawData): string {
  if (Array.isArray(data)) {
    return Buffer.concat(data).toString('utf8');
  }
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** A close code we may send on (1005/1006 are reserved for "none given" and "abnormal"). */
function sendableCode(code: number): number {
  return code === 1005 || code === 1006 || code < 1000 ? 1011 : code;
}

/**
 * `GET /v1/realtime`: one WebSocket session, top to bottom.
 * 1 trust the hop · 2 outbox bound · 3 plan from `?model=` · 4 open the upstream socket (failover
 * while connecting) · 5 accept the client and forward frames both ways, the model allowlist
 * applied to every frame that names a model · 6 one usage event per `response.done`.
 */
export async function relayRealtime(
  deps: RelayDeps,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const started = Date.now();
  socket.on('error', () => undefined);

  // 1 Only the edge may call.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);
  if (caller === 'bad_token' || caller === 'no_caller') {
    refuse(
      socket,
      401,
      'authentication_error',
      ErrorCode.Unauthenticated,
      'internal token or caller identity missing',
    );
    return;
  }

  // 2 Usage must have somewhere to go.
  if (deps.outbox.isFull()) {
    refuse(
      socket,
      503,
      'api_error',
      ErrorCode.Unavailable,
      'usage recording is backed up; try again shortly',
    );
    return;
  }

  // 3 Plan: the model comes in the query string.
  const url = new URL(req.url ?? '/', 'http://proxy');
  const model = url.searchParams.get('model') ?? '';
  if (!model) {
    refuse(
      socket,
      400,
      'invalid_request_error',
      ErrorCode.InvalidRequest,
      'the model query parameter is required',
    );
    return;
  }
  let pool;
  try {
    pool = await deps.keys.get(caller.ownerId);
  } catch {
    refuse(socket, 503, 'api_error', ErrorCode.Unavailable, 'no upstream is available right now');
    return;
  }
  const state = await deps.health.state(caller.ownerId);
  const planned = planRoute(pool, caller, model, state.sleeping, deps.roundRobin, state.switched);
  if (!planned.ok) {
    const status =
      planned.reason === 'no_key_available' ? 503 : planned.reason === 'model_not_routed' ? 404 : 403;
    refuse(
      socket,
      status,
      status === 503 ? 'api_error' : 'invalid_request_error',
      status === 503 ? ErrorCode.Unavailable : status === 404 ? ErrorCode.NotFound : ErrorCode.Forbidden,
      planned.message,
    );
    return;
  }

  // 4 Connect upstream: a key that refuses or fails to connect hands over to the next.
  const headers = forwardableRequestHeaders(req.headers);
  for (const name of [
    'sec-websocket-key',
    'sec-websocket-version',
    'sec-websocket-extensions',
    'accept-encoding',
  ]) {
    Reflect.deleteProperty(headers, name);
  }
  let chosen: { upstream: WebSocket; step: RouteStep; key: PoolKey; earlyFrames: () => Frame[] } | undefined;
  const failed = new Set<string>();
  search: for (const step of planned.plan.steps) {
    for (const key of step.keys) {
      // Realtime speaks the standard provider type only.
      if (failed.has(key.id) || key.type !== 'standard') {
        continue;
      }
      const attempt = await openUpstream(
        key,
        step.model,
        url.searchParams,
        headers,
        deps.config.PROXY_UPSTREAM_TIMEOUT_MS,
        upstreamPolicy(deps, pool),
      );
      if (attempt.ok) {
        chosen = { upstream: attempt.socket, step, key, earlyFrames: attempt.takeEarlyFrames };
        break search;
      }
      const outcome = attempt.status === undefined ? undefined : classifyStatus(attempt.status);
      if (outcome?.kind === 'client_error' && attempt.status !== undefined) {
        refuse(
          socket,
          attempt.status,
          'invalid_request_error',
          ErrorCode.InvalidRequest,
          `upstream refused the session (${attempt.status})`,
        );
        return;
      }
      failed.add(key.id);
      await recordFailure(
        deps,
        pool,
        state,
        caller.ownerId,
        key,
        step.level,
        outcome?.kind === 'failure' ? outcome.class : (attempt.failure ?? FailureClass.Connection),
      );
    }
  }
  if (!chosen) {
    refuse(socket, 503, 'api_error', ErrorCode.Unavailable, 'no upstream could serve this session');
    return;
  }
  const { upstream, step, key, earlyFrames } = chosen;
  void deps.health.recordSuccess(caller.ownerId, key.id);

  // 5 Forward frames both ways. Upstream may speak first (session.created): frames that arrive
  // before the client socket is ready wait in order.
  let client: WebSocket | undefined;
  const early: Frame[] = [];
  const fromUpstream = (data: RawData, isBinary: boolean) => {
    if (!isBinary) {
      const frame = parseJson(frameText(data)) as { type?: unknown } | undefined;
      // 6 Usage: every completed response in the session is one call.
      if (frame?.type === 'response.done') {
        const usage = readUsage(frame);
        if (usage.reported) {
          const event = toUsageEvent({
            accountId: caller.accountId,
            ownerId: caller.ownerId,
            modelRequested: model,
            modelServed: step.model,
            keyId: key.id,
            level: step.level,
            path: REALTIME_PATH,
            status: 101,
            usage,
            imageSize: '',
            latencyMs: Date.now() - started,
            partial: false,
          });
          deps.outbox
            .append(event)
            .catch((error: unknown) =>
              deps.log.error(
                { err: error, eventId: event.eventId },
                'realtime usage event could not be written',
              ),
            );
        }
      }
    }
    if (!client) {
      early.push([data, isBinary]);
    } else if (client.readyState === WebSocket.OPEN) {
      client.send(data, { binary: isBinary });
    }
  };
  const handshakeFrames = earlyFrames();
  upstream.on('message', fromUpstream);
  for (const [data, isBinary] of handshakeFrames) {
    fromUpstream(data, isBinary);
  }
  upstream.on('close', (code, reason) => client?.close(sendableCode(code), reason));
  upstream.on('error', () => client?.terminate());
  if (socket.destroyed) {
    upstream.terminate();
    return;
  }

  sockets.handleUpgrade(req, socket, head, (accepted) => {
    client = accepted;
    for (const [data, isBinary] of early.splice(0)) {
      accepted.send(data, { binary: isBinary });
    }
    if (upstream.readyState !== WebSocket.OPEN) {
      accepted.close(1011, 'upstream closed');
      return;
    }
    accepted.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary) {
        const frame = parseJson(frameText(data)) as
          { type?: unknown; session?: { model?: unknown } } | undefined;
        const named = frame?.session?.model;
        if (typeof named === 'string' && !isModelAllowed(caller.allowModels, named)) {
          accepted.send(
            JSON.stringify({
              type: 'error',
              error: {
                type: 'invalid_request_error',
                code: 'model_not_allowed',
                message: `model ${named} is not allowed for this key`,
              },
            }),
          );
          return;
        }
      }
      if (upstream.readyState === WebSocket.OPEN) {
        upstream.send(data, { binary: isBinary });
      }
    });
    accepted.on('close', (code, reason) => upstream.close(sendableCode(code), reason));
    accepted.on('error', () => upstream.terminate());
  });
}
