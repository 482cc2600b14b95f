import { findAiEndpoint, pathOf, rateLimitHeaders } from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import { admitCall } from '../../domain/call/admit-call.js';
import { openCall } from '../../domain/call/open-call.js';
import { runCall } from '../../domain/call/run-call.js';
import { parseRequest } from '../../domain/request.js';
import type { HttpExchange } from './exchange.js';
import { header, readBody } from './request-body.js';
import { httpUpstreamCall } from './http-upstream-call.js';

/**
 * An AI call over HTTP: the transport's part of the one call pipeline (docs in the README).
 * 1 authenticate the caller · 2 open the call (catalogue, Resources, outbox) · 3 read the request (bounded,
 * parsed exactly) · 4 admit it (limits, route) · 5 run it through upstream over HTTP.
 * A refusal before the answer starts is thrown as an AppError and answered in the spec's shape.
 */
export async function relay(
  deps: ProxyDeps,
  { req, res, requestId, log, details }: HttpExchange,
): Promise<void> {
  // The call's catalogue entry, looked up once: it names the route (a path outside the catalogue
  // stays unmatched and is refused when the call opens, once its caller is known).
  const endpoint = findAiEndpoint(req.method ?? 'GET', pathOf(req.url));
  if (endpoint) {
    details.route = endpoint.path;
  }
  const caller = await deps.callers.authenticate(req);
  const call = await openCall(deps, { endpoint, caller, details, requestId, log });

  const contentType = header(req, 'content-type') ?? '';
  const limit =
    call.endpoint.body === 'multipart'
      ? deps.config.PROXY_UPLOAD_LIMIT_BYTES
      : deps.config.PROXY_JSON_LIMIT_BYTES;
  const raw = await readBody(
    req,
    res,
    limit,
    deps.config.PROXY_BODY_TIMEOUT_MS,
    deps.bodies.hold(caller.accountId),
  );
  const request = await parseRequest(call.endpoint, contentType, raw);

  const admitted = await admitCall(deps, call, request);
  for (const [name, value] of Object.entries(rateLimitHeaders(admitted.limitWindows))) {
    res.setHeader(name, value);
  }
  await runCall(deps, admitted, httpUpstreamCall(deps, admitted, { req, res }));
}
