import { Agent, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  AppError,
  CALLER_HEADER,
  encodeCaller,
  INTERNAL_TOKEN_HEADER,
  isAiPath,
  REQUEST_ID_HEADER,
  type CallerIdentity,
  type Logger,
} from '@gw/kit';
import type { accounts } from '@gw/proto';
import express, { type Express, type RequestHandler, type Router } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { authenticate, callerOf, resolveCaller } from '../auth/authenticate.js';
import { toHttp } from '../http/errors.js';
import { assertMayCallAi } from './admission.js';
import type { EdgeDeps } from '../deps.js';

/** What the proxy needs to know about the caller; root and owners are served by their own pool. */
export function callerIdentity(account: accounts.Account): CallerIdentity {
  return {
    accountId: String(account.id),
    ownerId: String(account.isRoot || account.isOwner ? account.id : account.ownerId),
    allowModels: account.allowModels,
    allowLevels: account.allowLevels,
    modelMapper: account.modelMapper,
  };
}

const onlyAiPaths: RequestHandler = (req, _res, next) => {
  next(isAiPath(req.path) ? undefined : 'router');
};

export const REALTIME_PATH = '/v1/realtime';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

const upgradeHandlers = new WeakMap<Express, UpgradeHandler>();

/** The WebSocket upgrade handler of an app built with AI forwarding (main.ts hands it to the server). */
export function upgradeHandlerOf(app: Express): UpgradeHandler {
  return upgradeHandlers.get(app) ?? ((_req, socket) => socket.destroy());
}

export function setUpgradeHandler(app: Express, handler: UpgradeHandler): void {
  upgradeHandlers.set(app, handler);
}

function refuseUpgrade(socket: Duplex, status: number, type: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { message, type, code } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Authenticates, then streams the request to the proxy and its answer back without buffering
 * either (mounted before the JSON body parser). The caller identity and the internal token travel
 * in headers; the client's own key does not.
 */
export function aiForwarding(deps: EdgeDeps, log: Logger): { router: Router; upgrade: UpgradeHandler } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
  const proxy = createProxyMiddleware({
    target: `http://${deps.config.PROXY_ADDR}`,
    agent,
    xfwd: false,
    changeOrigin: false,
    logger: {
      info: (...args: unknown[]) => log.debug({ args }, 'forwarded'),
      warn: (...args: unknown[]) => log.warn({ args }, 'forwarding'),
      error: (...args: unknown[]) => log.error({ args }, 'forwarding'),
    },
    on: {
      proxyReq: (proxyReq, _req, res) => {
        const caller = (res as unknown as { locals: { caller: accounts.Account; requestId?: string } })
          .locals;
        proxyReq.removeHeader('authorization');
        proxyReq.setHeader(INTERNAL_TOKEN_HEADER, deps.config.GW_INTERNAL_TOKEN);
        proxyReq.setHeader(CALLER_HEADER, encodeCaller(callerIdentity(caller.caller)));
        if (caller.requestId) {
          proxyReq.setHeader(REQUEST_ID_HEADER, caller.requestId);
        }
      },
      error: (error, _req, res) => {
        log.error({ err: error }, 'proxy unreachable');
        if ('writeHead' in res && !res.headersSent) {
          res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
          res.end(
            JSON.stringify({
              error: { message: 'the AI proxy is unavailable', type: 'api_error', code: 'unavailable' },
            }),
          );
        } else {
          res.destroy();
        }
      },
    },
  });

  const router = express.Router();
  router.use(onlyAiPaths, authenticate(deps, 'user'), (req, res, next) => {
    // Identity headers a client sent itself are overwritten in proxyReq.
    assertMayCallAi(callerOf(res), deps.config.USER_API_BALANCE);
    return proxy(req, res, next);
  });

  // WebSocket `GET /v1/realtime`: the same key check, then the socket is piped to the proxy.
  const upgrade: UpgradeHandler = (req, socket, head) => {
    socket.on('error', () => undefined);
    if (new URL(req.url ?? '/', 'http://edge').pathname !== REALTIME_PATH) {
      socket.destroy();
      return;
    }
    void (async () => {
      let account: accounts.Account;
      try {
        account = await resolveCaller(deps, req.headers.authorization, 'user');
        assertMayCallAi(account, deps.config.USER_API_BALANCE);
      } catch (error) {
        if (!(error instanceof AppError)) {
          throw error;
        }
        const { status, type } = toHttp(error.code);
        refuseUpgrade(socket, status, type, error.code, error.message);
        return;
      }
      delete req.headers.authorization;
      req.headers[INTERNAL_TOKEN_HEADER] = deps.config.GW_INTERNAL_TOKEN;
      req.headers[CALLER_HEADER] = encodeCaller(callerIdentity(account));
      // Node hands 'upgrade' listeners a net.Socket typed as Duplex.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
      proxy.upgrade(req, socket as Parameters<typeof proxy.upgrade>[1], head);
    })().catch((error: unknown) => {
      log.error({ err: error }, 'realtime upgrade failed');
      refuseUpgrade(socket, 503, 'api_error', 'unavailable', 'authentication is unavailable right now');
    });
  };
  return { router, upgrade };
}
