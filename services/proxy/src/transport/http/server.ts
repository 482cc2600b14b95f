import { createServer, type Server } from 'node:http';
import { AppError, ErrorCode, refuseUpgrade, runWithContext, sendHttpError, type Logger } from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import { requestIdOf } from './hop.js';
import { HTTP_ROUTES, UPGRADE_ROUTES } from './routes.js';

/** An AppError becomes its mapped answer; anything else is logged once and answered 500. */
function asAppError(error: unknown, log: Logger): AppError {
  if (error instanceof AppError) {
    return error;
  }
  log.error({ err: error }, 'request failed');
  return new AppError(ErrorCode.Internal, 'internal error');
}

const pathOf = (url: string | undefined) => (url ?? '/').split('?')[0] ?? '/';

/**
 * The proxy's HTTP server: dispatch through the route tables, the request id carried into the
 * handler's context and logger, errors in the spec's shape. Streams may be long, so there is no
 * server-side request timeout; idle upstreams are cut by the relay.
 */
export function createHttpServer(deps: ProxyDeps): Server {
  const server = createServer((req, res) => {
    const path = pathOf(req.url);
    const route = HTTP_ROUTES.find(
      (candidate) => (candidate.method === '*' || candidate.method === req.method) && candidate.matches(path),
    );
    if (!route) {
      sendHttpError(res, new AppError(ErrorCode.NotFound, 'no such endpoint'));
      return;
    }
    const requestId = requestIdOf(req);
    const log = deps.log.child({ requestId });
    runWithContext({ requestId }, () => {
      route.handle({ ...deps, log }, req, res).catch((error: unknown) => {
        sendHttpError(res, asAppError(error, log));
      });
    });
  });
  server.on('upgrade', (req, socket, head: Buffer) => {
    const route = UPGRADE_ROUTES.find((candidate) => candidate.path === pathOf(req.url));
    if (!route) {
      socket.destroy();
      return;
    }
    const requestId = requestIdOf(req);
    const log = deps.log.child({ requestId });
    runWithContext({ requestId }, () => {
      route.handle({ ...deps, log }, req, socket, head).catch((error: unknown) => {
        refuseUpgrade(socket, asAppError(error, log));
      });
    });
  });
  server.requestTimeout = 0;
  return server;
}
