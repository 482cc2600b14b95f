import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, callerMayUseModel, ErrorCode, realtimeErrorEvent, REALTIME_PATH } from '@gw/kit';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { failureDeps, upstreamPolicy, type ProxyDeps } from '../../deps.js';
import { assertAdmitted, callWindows } from '../../domain/call-limits.js';
import { classifyStatus, FailureClass } from '../../domain/key-health.js';
import { isTokenField } from '../../domain/limits.js';
import type { OwnerPool, PoolKey } from '../../domain/pool.js';
import type { PoolState } from '../../domain/ports.js';
import { forwardableRequestHeaders } from '../../domain/providers.js';
import { recordFailure } from '../../domain/record-failure.js';
import { planRoute, refusalError, type RouteStep } from '../../domain/route-plan.js';
import { parseJson } from '../../domain/sse.js';
import { readUsage, toUsageEvent } from '../../domain/usage.js';
import { openUpstreamSocket, type Frame } from '../upstream/websocket.js';
import { framePipe, frameText } from './frame-pipe.js';
import { trustedCaller } from './hop.js';

const sockets = new WebSocketServer({ noServer: true });

/** Client headers the upstream handshake must not inherit: ws makes its own. */
const HANDSHAKE_HEADERS = [
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'accept-encoding',
];

/** A close code we may send on (1005/1006 are reserved for "none given" and "abnormal"). */
function sendableCode(code: number): number {
  return code === 1005 || code === 1006 || code < 1000 ? 1011 : code;
}

/**
 * `GET /v1/realtime`: one WebSocket session, top to bottom.
 * 1 trust the hop · 2 outbox bound · 3 plan from `?model=` · 4 open the upstream socket (failover
 * while connecting) · 5 accept the client and forward frames both ways with back-pressure, the
 * model allowlist applied to every frame (text or binary) that names a model · 6 one usage event
 * per `response.done`. The session ends when its account is changed in a way that revokes it.
 * A refusal before the client socket is accepted is thrown as an AppError (a plain HTTP answer).
 */
export async function relayRealtime(
  deps: ProxyDeps,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const started = Date.now();
  socket.on('error', () => undefined);

  // 1 Only the edge may call.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);
  if (deps.access) {
    deps.access.accountId = caller.accountId;
  }

  // 2 Usage must have somewhere to go.
  if (deps.outbox.isFull()) {
    throw new AppError(ErrorCode.Unavailable, 'usage recording is backed up; try again shortly');
  }

  // 3 Plan: the model comes in the query string.
  const url = new URL(req.url ?? '/', 'http://proxy');
  const model = url.searchParams.get('model') ?? '';
  if (!model) {
    throw new AppError(ErrorCode.InvalidRequest, 'the model query parameter is required');
  }
  const pool = await deps.keys.get(caller.ownerId).catch(() => {
    throw new AppError(ErrorCode.Unavailable, 'no upstream is available right now');
  });
  const state = await deps.health.state(caller.ownerId);
  const planned = planRoute(pool, caller, model, state.sleeping, deps.roundRobin, state.switched);
  if (!planned.ok) {
    throw refusalError(planned.reason, planned.message);
  }
  // The session is one request of the account's (and the model's) windows.
  const windows = callWindows(caller, pool, deps.defaultModelLimits, model);
  const admittedAt = Date.now();
  assertAdmitted(await deps.limiter.admit(windows, admittedAt), admittedAt);
  const tokenWindows = windows.filter((window) => isTokenField(window.field));

  // 4 Connect upstream: a key that refuses or fails to connect hands over to the next.
  const headers = forwardableRequestHeaders(req.headers);
  for (const name of HANDSHAKE_HEADERS) {
    Reflect.deleteProperty(headers, name);
  }
  // A session that never reached an upstream was not a request: its count is taken back.
  const chosen = await connectUpstream(
    deps,
    pool,
    state,
    planned.plan.steps,
    url.searchParams,
    headers,
  ).catch((error: unknown) => {
    void deps.limiter.refund(windows, admittedAt);
    throw error;
  });
  const { upstream, step, key, earlyFrames } = chosen;
  if (deps.access) {
    deps.access.keyId = key.id;
    deps.access.keyLevel = step.level;
  }
  void deps.health.recordSuccess(caller.ownerId, key.id);

  // 5 Forward frames both ways. Upstream may speak first (session.created): frames that arrive
  // before the client socket is ready wait in order.
  let client: WebSocket | undefined;
  let toClient: ((data: RawData, isBinary: boolean) => void) | undefined;
  const early: Frame[] = [];
  // Every response's tokens count in the token windows; once one is spent, the session ends.
  const endWhenTokensSpent = async (tokens: number) => {
    const now = Date.now();
    await deps.limiter.addTokens(tokenWindows, tokens, now);
    const check = await deps.limiter.admit(tokenWindows, now);
    if (!check.ok && client) {
      client.send(
        realtimeErrorEvent(new AppError(ErrorCode.RateLimited, 'token rate limit reached: session ended')),
      );
      client.close(1008, 'rate limit reached');
    }
  };
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
            estimated: false,
          });
          deps.outbox
            .append(event)
            .catch((error: unknown) =>
              deps.log.error(
                { err: error, eventId: event.eventId },
                'realtime usage event could not be written',
              ),
            );
          void endWhenTokensSpent(usage.promptTokens + usage.completionTokens);
        }
      }
    }
    if (toClient) {
      toClient(data, isBinary);
    } else {
      early.push([data, isBinary]);
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
    deps.sessions.open(caller.accountId, accepted);
    toClient = framePipe(upstream, accepted);
    for (const [data, isBinary] of early.splice(0)) {
      toClient(data, isBinary);
    }
    if (upstream.readyState !== WebSocket.OPEN) {
      accepted.close(1011, 'upstream closed');
      return;
    }
    const toUpstream = framePipe(accepted, upstream);
    accepted.on('message', (data: RawData, isBinary: boolean) => {
      // Binary frames get the same check: a model named in one is a model named.
      const frame = parseJson(frameText(data)) as { session?: { model?: unknown } } | undefined;
      const named = frame?.session?.model;
      if (typeof named === 'string' && !callerMayUseModel(caller, named)) {
        accepted.send(
          realtimeErrorEvent(
            new AppError(ErrorCode.ModelNotAllowed, `model ${named} is not allowed for this key`),
          ),
        );
        return;
      }
      toUpstream(data, isBinary);
    });
    accepted.on('close', (code, reason) => upstream.close(sendableCode(code), reason));
    accepted.on('error', () => upstream.terminate());
  });
}

interface Connected {
  upstream: WebSocket;
  step: RouteStep;
  key: PoolKey;
  earlyFrames: () => Frame[];
}

/** Opens the session on the first key of the plan that accepts it; a key that refuses or fails hands over. */
async function connectUpstream(
  deps: ProxyDeps,
  pool: OwnerPool,
  state: PoolState,
  steps: readonly RouteStep[],
  query: URLSearchParams,
  headers: Record<string, string>,
): Promise<Connected> {
  const failed = new Set<string>();
  for (const step of steps) {
    for (const key of step.keys) {
      // Realtime speaks the standard provider type only.
      if (failed.has(key.id) || key.type !== 'standard') {
        continue;
      }
      const attempt = await openUpstreamSocket(
        key,
        step.model,
        query,
        headers,
        deps.config.PROXY_UPSTREAM_TIMEOUT_MS,
        upstreamPolicy(deps, pool),
      );
      if (attempt.ok) {
        return { upstream: attempt.socket, step, key, earlyFrames: attempt.takeEarlyFrames };
      }
      const outcome = attempt.status === undefined ? undefined : classifyStatus(attempt.status);
      if (outcome?.kind === 'client_error') {
        // The client's own fault (an unknown model, a bad parameter): no other key would differ.
        const code = attempt.status === 404 ? ErrorCode.NotFound : ErrorCode.InvalidRequest;
        throw new AppError(code, `upstream refused the session (${attempt.status})`);
      }
      failed.add(key.id);
      const failure =
        outcome?.kind === 'failure' ? outcome.class : (attempt.failure ?? FailureClass.Connection);
      await recordFailure(failureDeps(deps), {
        pool,
        state,
        key,
        level: step.level,
        model: step.model,
        failure,
      });
    }
  }
  throw new AppError(ErrorCode.Unavailable, 'no upstream could serve this session');
}
