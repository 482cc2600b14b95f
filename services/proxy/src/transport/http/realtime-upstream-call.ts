import { AppError, ErrorCode, realtimeErrorEvent } from '@gw/kit';
import WebSocket, { type RawData } from 'ws';
import { upstreamPolicy, type ProxyDeps } from '../../deps.js';
import type { AdmittedCall, CallMeter } from '../../domain/call/call.js';
import type { UpstreamCall } from '../../domain/ports/upstream-call.js';
import { classifyStatus, FailureClass } from '../../domain/key-health.js';
import { ProviderType } from '@gw/kit';
import { forwardableRequestHeaders } from '../../domain/providers.js';
import { parseJson } from '../../domain/sse.js';
import { sessionModelRefusal, sessionTokensSpent } from '../../domain/session-refusals.js';
import { readUsage } from '../../domain/usage.js';
import { openUpstreamSocket, type Frame } from '../upstream/websocket.js';
import type { UpgradeExchange } from './exchange.js';
import { clientSockets, framePipe, frameText } from './frame-pipe.js';

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

interface OpenSocket {
  upstream: WebSocket;
  earlyFrames: () => Frame[];
}

/**
 * The pipeline's upstream port over WebSocket: an attempt opens the key's realtime socket (a key
 * that refuses or fails to connect hands over to the next); serving accepts the client and
 * forwards frames both ways with back-pressure, AllowModels applied to every client frame that
 * names a model, one usage event per `response.done`, and the session ended once a token window
 * is spent. A revoked account's sessions are ended through the session registry.
 */
export function realtimeUpstreamCall(
  deps: ProxyDeps,
  call: AdmittedCall,
  exchange: UpgradeExchange,
  query: URLSearchParams,
): UpstreamCall<OpenSocket> {
  const { req, socket, head } = exchange;
  const headers = forwardableRequestHeaders(req.headers);
  for (const name of HANDSHAKE_HEADERS) {
    Reflect.deleteProperty(headers, name);
  }
  return {
    clientGone: () => socket.destroyed,

    async attempt({ key, step }) {
      // Realtime speaks the standard provider type only.
      if (key.type !== ProviderType.Standard) {
        return { kind: 'skipped' };
      }
      const attempt = await openUpstreamSocket(
        key,
        step.model,
        query,
        headers,
        deps.config.PROXY_UPSTREAM_TIMEOUT_MS,
        upstreamPolicy(deps, call.pool),
        deps.config.PROXY_REALTIME_MAX_FRAME_BYTES,
      );
      if (attempt.ok) {
        return { kind: 'served', answer: { upstream: attempt.socket, earlyFrames: attempt.takeEarlyFrames } };
      }
      const outcome = attempt.status === undefined ? undefined : classifyStatus(attempt.status);
      if (outcome?.kind === 'client_error') {
        // The client's own fault (an unknown model, a bad parameter): no other key would differ.
        const message = `upstream refused the session (${attempt.status})`;
        throw attempt.status === 404
          ? new AppError(ErrorCode.NotFound, message)
          : new AppError(ErrorCode.InvalidRequest, message);
      }
      return {
        kind: 'failed',
        failure: outcome?.kind === 'failure' ? outcome.class : (attempt.failure ?? FailureClass.Connection),
        status: attempt.status,
      };
    },

    serve: ({ upstream, earlyFrames }, _served, meter) =>
      serveSession(deps, call, { req, socket, head, upstream, earlyFrames, meter }),
  };
}

/** Forwards one accepted session's frames both ways until either side closes. */
function serveSession(
  deps: ProxyDeps,
  call: AdmittedCall,
  session: Pick<UpgradeExchange, 'req' | 'socket' | 'head'> & OpenSocket & { meter: CallMeter },
): Promise<void> {
  const { upstream, meter } = session;
  // Upstream may speak first (session.created): frames that arrive before the client socket is
  // ready wait in order.
  let client: WebSocket | undefined;
  let toClient: ((data: RawData, isBinary: boolean) => void) | undefined;
  const early: Frame[] = [];

  const endWhenTokensSpent = async () => {
    if (!(await meter.tokensLeft()) && client) {
      client.send(realtimeErrorEvent(sessionTokensSpent()));
      client.close(1008, 'rate limit reached');
    }
  };
  const fromUpstream = (data: RawData, isBinary: boolean) => {
    if (!isBinary) {
      const frame = parseJson(frameText(data)) as { type?: unknown } | undefined;
      // Every completed response in the session is one metered exchange.
      if (frame?.type === 'response.done') {
        const usage = readUsage(frame);
        if (usage.reported) {
          void meter.reported(usage, 101).then(endWhenTokensSpent);
        }
      }
    }
    if (toClient) {
      toClient(data, isBinary);
    } else {
      early.push([data, isBinary]);
    }
  };
  const handshakeFrames = session.earlyFrames();
  upstream.on('message', fromUpstream);
  for (const [data, isBinary] of handshakeFrames) {
    fromUpstream(data, isBinary);
  }
  upstream.on('close', (code, reason) => client?.close(sendableCode(code), reason));
  upstream.on('error', () => client?.terminate());
  if (session.socket.destroyed) {
    upstream.terminate();
    return Promise.resolve();
  }

  return new Promise((resolve) => {
    upstream.once('close', () => resolve());
    clientSockets(deps.config.PROXY_REALTIME_MAX_FRAME_BYTES).handleUpgrade(
      session.req,
      session.socket,
      session.head,
      (accepted) => {
        client = accepted;
        deps.sessions.open(call.caller.accountId, accepted);
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
          const refusal = typeof named === 'string' ? sessionModelRefusal(call.caller, named) : undefined;
          if (refusal) {
            accepted.send(realtimeErrorEvent(refusal));
            return;
          }
          toUpstream(data, isBinary);
        });
        accepted.on('close', (code, reason) => upstream.close(sendableCode(code), reason));
        accepted.on('error', () => upstream.terminate());
      },
    );
  });
}
