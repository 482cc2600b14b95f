import { createServer, type Server } from 'node:http';
import {
  AppError,
  ErrorCode,
  HttpObserver,
  pathOf,
  logServerSide,
  REQUEST_ID_HEADER,
  requestIdFrom,
  refuseUpgrade,
  sendHttpError,
  toAppError,
  toHttp,
  UNMATCHED_ROUTE,
  type Logger,
  type Metrics,
  type RequestDetails,
} from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import { Drain } from './drain.js';
import type { EdgePipe } from './pass-to-edge.js';
import { HTTP_ROUTES, isProxyPath, UPGRADE_ROUTES } from './routes.js';

/** What a route threw as its answer, logged by the kit's rule (ours once with its stack). */
function asAppError(error: unknown, log: Logger): AppError {
  const known = toAppError(error);
  logServerSide(log, known);
  return known;
}

/**
 * The proxy's HTTP server: dispatch through the route tables, the request id (the client's sane
 * one or a new one) carried into the handler's context, logger and answer, errors in the spec's
 * shape, and every request timed by route template and written as one access line (the call fills
 * in the account, key and Level).
 * Streams may be long, so there is no server-side request timeout; idle upstreams are cut by the
 * relay. With `edge` (the front door, EDGE_ADDR set) a request no route serves goes to the edge,
 * which times and logs it.
 */
export function createHttpServer(
  deps: ProxyDeps,
  metrics: Metrics,
  drain = new Drain(),
  accessLog?: { readonly enabled: boolean },
  edge?: EdgePipe,
): Server {
  const observer = new HttpObserver(metrics, deps.log, accessLog);
  const server = createServer((req, res) => {
    drain.closeAfter(res);
    const path = pathOf(req.url);
    const method = req.method ?? 'GET';
    const route = HTTP_ROUTES.find(
      (candidate) =>
        (candidate.method === '*' || candidate.method === method) && candidate.matches(path, method),
    );
    if (!route && edge && !isProxyPath(path)) {
      edge.pass(req, res);
      return;
    }
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const access: RequestDetails = { route: route?.name ?? UNMATCHED_ROUTE };
    observer.watch(req, res, requestId, () => access);
    if (!route) {
      sendHttpError(res, new AppError(ErrorCode.NotFound, 'no such endpoint'));
      return;
    }
    if (route.refusedWhileDraining && drain.active) {
      sendHttpError(res, drain.refusal());
      return;
    }
    const log = deps.log.child({ requestId });
    route.handle(deps, { req, res, requestId, log, details: access }).catch((error: unknown) => {
      sendHttpError(res, asAppError(error, log));
    });
  });
  server.on('upgrade', (req, socket, head: Buffer) => {
    const route = UPGRADE_ROUTES.find((candidate) => candidate.path === pathOf(req.url));
    if (!route) {
      socket.destroy();
      return;
    }
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    const access = { route: route.path, status: 101 };
    observer.watchUpgrade(req, socket, requestId, () => access);
    if (drain.active) {
      access.status = 503;
      refuseUpgrade(socket, drain.refusal());
      return;
    }
    const log = deps.log.child({ requestId });
    route.handle(deps, { req, socket, head, requestId, log, details: access }).catch((error: unknown) => {
      const known = asAppError(error, log);
      access.status = toHttp(known.code).status;
      refuseUpgrade(socket, known);
    });
  });
  server.requestTimeout = 0;
  return server;
}
