import {
  AppError,
  ErrorCode,
  HttpObserver,
  refuseControlCharacters,
  type Logger,
  type Metrics,
} from '@gw/kit';
import express, { type Express } from 'express';
import { authenticate } from './auth/authenticate.js';
import { consoleDir } from './console/console-dir.js';
import { sessionAuthentication, sessionMayCall } from './console/session-auth.js';
import { consolePages } from './console/static.js';
import type { EdgeDeps } from './deps.js';
import { errorHandler } from './http/errors.js';
import { jsonBody, requireJsonContentType } from './http/json-body.js';
import { nameRoute, observeRequests } from './http/observe.js';
import { signupErrorHandler } from './http/x-sign/answers.js';
import { assignRequestId, withRequestContext } from './http/request-id.js';
import { ROUTES } from './routes.js';

/**
 * Builds the edge's Express app: request ids, request metrics and access lines, JSON bodies, the
 * route table, the console, 404 and the error shape. AI calls are not the edge's: the proxy
 * serves them on the public port and passes everything else here.
 */
export function buildApp(
  deps: EdgeDeps,
  log: Logger,
  metrics: Metrics,
  accessLog?: { readonly enabled: boolean },
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(assignRequestId);
  const observer = new HttpObserver(metrics, log, accessLog);
  app.use(observeRequests(observer));
  app.use(requireJsonContentType, jsonBody(deps.config.GW_BODY_LIMIT));
  app.use(withRequestContext);

  const bySession = sessionAuthentication(deps);
  for (const route of ROUTES) {
    const handlers =
      route.access === 'public'
        ? []
        : [...(sessionMayCall(route.path) ? [bySession] : []), authenticate(deps, route.access)];
    app[route.method](route.path, nameRoute(route.path), ...handlers, (req, res) => {
      // Path parameters, query and body alike: a control character is a 400 naming its field.
      for (const input of [req.params, req.query, req.body as unknown]) {
        refuseControlCharacters(input);
      }
      return route.handle(deps, req, res);
    });
  }

  app.use(consolePages(consoleDir(deps.config.GW_CONSOLE_DIR)));

  app.use(() => {
    throw new AppError(ErrorCode.NotFound, 'no such endpoint');
  });
  app.use('/x-sign', signupErrorHandler(log));
  app.use(errorHandler(log));
  return app;
}
