import { findAiEndpoint } from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import { admitCall } from '../../domain/call/admit-call.js';
import { openCall } from '../../domain/call/open-call.js';
import { runCall } from '../../domain/call/run-call.js';
import { queryRequest } from '../../domain/request.js';
import type { UpgradeExchange } from './exchange.js';
import { realtimeUpstreamCall } from './realtime-upstream-call.js';

/**
 * `GET /v1/realtime`: one WebSocket session, the transport's part of the one call pipeline.
 * 1 authenticate the caller · 2 open the call (catalogue, Resources, outbox) · 3 the request: the model of
 * the query string · 4 admit it (limits, route; the session is one request of its windows) ·
 * 5 run it through upstream over WebSocket.
 * A refusal before the client socket is accepted is thrown as an AppError (a plain HTTP answer).
 */
export async function relayRealtime(deps: ProxyDeps, exchange: UpgradeExchange): Promise<void> {
  const { req, socket, requestId, log, details } = exchange;
  socket.on('error', () => undefined);
  const url = new URL(req.url ?? '/', 'http://proxy');
  const endpoint = findAiEndpoint('GET', url.pathname, true);
  const caller = await deps.callers.authenticate(req);
  const call = await openCall(deps, { endpoint, caller, details, requestId, log });
  const request = queryRequest(call.endpoint, url.searchParams.get('model'));
  const admitted = await admitCall(deps, call, request);
  await runCall(deps, admitted, realtimeUpstreamCall(deps, admitted, exchange, url.searchParams));
}
