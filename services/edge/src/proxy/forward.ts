import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  AppError,
  assertMayCallAi,
  CALLER_HEADER,
  callerIdentity,
  CLIENT_ADDRESS_HEADER,
  clientOf,
  encodeCaller,
  ErrorCode,
  findAiEndpoint,
  INTERNAL_TOKEN_HEADER,
  isAiPath,
  pathOf,
  logServerSide,
  REALTIME_PATH,
  refuseUpgrade,
  REQUEST_ID_HEADER,
  sendHttpError,
  toAppError,
  toHttp,
  UNMATCHED_ROUTE,
  UPSTREAM_KEY_HEADER,
  UPSTREAM_LEVEL_HEADER,
  type HttpObserver,
  type Logger,
  type RequestDetails,
} from '@gw/kit';
import type { accounts } from '@gw/proto';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { resolveCaller } from '../auth/authenticate.js';
import { requestIdFrom } from '../http/request-id.js';
import type { EdgeDeps } from '../deps.js';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The edge's AI traffic, taken before Express ever sees the request. */
export interface AiForwarding {
  /**
   * Takes the request when it is an AI call the proxy answers (false: not one, the app serves it).
   * AI calls skip Express: its router, its request and response wrappers and the middleware of
   * management routes cost more CPU than the rest of the edge's hop did.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** WebSocket `GET /v1/realtime`. */
  upgrade: UpgradeHandler;
}

/**
 * The catalogue entry an AI path goes to the proxy under, `null` for an AI path outside the
 * catalogue (the proxy answers it 404), or undefined when the edge serves the path itself: not an
 * AI path, or the model listing (ROUTES).
 */
function forwardedEndpoint(method: string, path: string): { path: string } | null | undefined {
  if (!isAiPath(path)) {
    return undefined;
  }
  const endpoint = findAiEndpoint(method, path);
  if (endpoint?.answeredByEdge === true) {
    return undefined;
  }
  return endpoint ?? null;
}

/**
 * The caller header of each cached account, encoded once: the cache hands out the same account
 * object until accounts reports a change, and the floor is fixed for the process's life.
 */
const callerHeaders = new WeakMap<accounts.Account, string>();

function callerHeaderOf(account: accounts.Account, apiBalanceFloorNano: bigint): string {
  let header = callerHeaders.get(account);
  if (header === undefined) {
    header = encodeCaller(callerIdentity(account, apiBalanceFloorNano));
    callerHeaders.set(account, header);
  }
  return header;
}

/**
 * Steps 1 and 2 of every AI call, HTTP or WebSocket, then the hop headers it is forwarded with
 * (step 3 streams it): the internal token and the caller identity replace the client's key, and
 * identity headers a client sent itself are overwritten. They are written on the request itself,
 * never in http-proxy's `proxyReq` hook, which it skips for a request carrying `Expect` (curl
 * sends `Expect: 100-continue` with every body over 1 MB). Node already answered the client's
 * `Expect` (no `checkContinue` listener), so it does not go on to the proxy.
 */
async function admitAiCall(
  deps: EdgeDeps,
  req: IncomingMessage,
  requestId: string,
): Promise<accounts.Account> {
  // 1 authenticate the key (the same check as every route) · 2 admission (spend)
  const client = clientOf(req, deps);
  const account = await resolveCaller(
    deps,
    { authorization: req.headers.authorization, apiKey: req.headers['x-api-key'], client },
    'user',
    'ai',
  );
  assertMayCallAi(account, deps.config.USER_API_BALANCE, new Date());
  // The client's key (either header) never leaves the edge.
  delete req.headers.authorization;
  delete req.headers['x-api-key'];
  delete req.headers.expect;
  req.headers[INTERNAL_TOKEN_HEADER] = deps.config.GW_INTERNAL_TOKEN;
  req.headers[CALLER_HEADER] = callerHeaderOf(account, deps.config.USER_API_BALANCE);
  req.headers[REQUEST_ID_HEADER] = requestId;
  // Beside the internal token the proxy would believe a client's own x-gw-client: it names ours.
  req.headers[CLIENT_ADDRESS_HEADER] = client;
  return account;
}

/**
 * When the proxy's answer breaks after its headers were relayed (the proxy cut it, was killed or
 * exited), the client's connection is closed at once: http-proxy's error hook does not fire once
 * headers are sent, and a piped answer that never ends would hold the client forever.
 */
function cutClientWhenAnswerBreaks(proxyRes: IncomingMessage, res: ServerResponse): void {
  proxyRes.on('close', () => {
    if (!proxyRes.complete && !res.destroyed) {
      res.destroy();
    }
  });
}

/**
 * When the client leaves before the answer ended, the hop to the proxy is cut, so the proxy sees
 * its client gone (and cuts upstream after its usage grace, freeing the account's slot).
 * http-proxy aborts its request only on the request's `aborted` event, which Node no longer emits
 * once the request body was read: a client that left while upstream had not answered yet held
 * the proxy's call until upstream's own timeout.
 */
function cutHopWhenClientLeaves(proxyReq: ClientRequest, res: ServerResponse): void {
  res.on('close', () => {
    if (!res.writableFinished && !proxyReq.destroyed) {
      proxyReq.destroy();
    }
  });
}

/**
 * The edge's hop of an AI call, HTTP or WebSocket: `admitAiCall` (authenticate, admission, hop
 * headers), then the request is streamed to the proxy and the answer back, without buffering
 * either. Each call is timed and written as one access line like every request (HttpObserver),
 * with the upstream key and Level the proxy names.
 */
export function aiForwarding(deps: EdgeDeps, log: Logger, observer: HttpObserver): AiForwarding {
  /** What the access line of each forwarded call says beyond the request itself. */
  const accessOf = new WeakMap<ServerResponse, RequestDetails>();
  const proxy = createProxyMiddleware({
    target: `http://${deps.config.PROXY_ADDR}`,
    agent: new Agent({ keepAlive: true, maxSockets: 1024 }),
    xfwd: false,
    changeOrigin: false,
    logger: {
      info: (...args: unknown[]) => log.debug({ args }, 'forwarded'),
      warn: (...args: unknown[]) => log.warn({ args }, 'forwarding'),
      error: (...args: unknown[]) => log.error({ args }, 'forwarding'),
    },
    on: {
      proxyReq: (proxyReq, _req, res) => cutHopWhenClientLeaves(proxyReq, res),
      // The upstream key and Level go to the access line, never to the client.
      proxyRes: (proxyRes, _req, res) => {
        const { [UPSTREAM_KEY_HEADER]: key, [UPSTREAM_LEVEL_HEADER]: level, ...passed } = proxyRes.headers;
        proxyRes.headers = passed;
        const access = accessOf.get(res);
        if (access && typeof key === 'string') {
          access.keyId = key;
        }
        if (access && typeof level === 'string') {
          access.keyLevel = Number(level);
        }
        cutClientWhenAnswerBreaks(proxyRes, res);
      },
      error: (error, req, res) => {
        if ('writeHead' in res && res.writableFinished) {
          // The proxy answered early (a refused upload) and its connection went while the
          // client was still sending: the client has its whole answer, so the rest of its
          // upload is read and dropped rather than its connection cut mid-write.
          log.debug({ err: error }, 'proxy hop closed after its answer');
          req.unpipe();
          req.resume();
          return;
        }
        log.error({ err: error }, 'proxy unreachable');
        if ('writeHead' in res && !res.headersSent) {
          sendHttpError(res, new AppError(ErrorCode.Unavailable, 'the AI proxy is unavailable'));
        } else {
          res.destroy();
        }
      },
    },
  });

  const serve = (req: IncomingMessage, res: ServerResponse): boolean => {
    const endpoint = forwardedEndpoint(req.method ?? 'GET', pathOf(req.url));
    if (endpoint === undefined) {
      return false;
    }
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const access: RequestDetails = { route: endpoint?.path ?? UNMATCHED_ROUTE };
    accessOf.set(res, access);
    observer.watch(req, res, requestId, () => access);
    admitAiCall(deps, req, requestId)
      .then(async (account) => {
        access.accountId = String(account.id);
        await proxy(req, res, () => {
          // It has no path filter: it passes nothing on.
          throw new AppError(ErrorCode.Internal, 'the AI hop passed the call on');
        });
      })
      .catch((error: unknown) => {
        const known = toAppError(error);
        logServerSide(log, known);
        sendHttpError(res, known);
      });
    return true;
  };

  // WebSocket `GET /v1/realtime`: the same steps, then the socket is piped to the proxy.
  const upgrade: UpgradeHandler = (req, socket, head) => {
    socket.on('error', () => undefined);
    if (new URL(req.url ?? '/', 'http://edge').pathname !== REALTIME_PATH) {
      socket.destroy();
      return;
    }
    // The proxy's access line of the session carries the same request id. Status 101: forwarded.
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    const access: RequestDetails & { status: number } = { route: REALTIME_PATH, status: 101 };
    observer.watchUpgrade(req, socket, requestId, () => access);
    admitAiCall(deps, req, requestId)
      .then((account) => {
        access.accountId = String(account.id);
        // Node hands 'upgrade' listeners a net.Socket typed as Duplex.
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
        proxy.upgrade(req, socket as Parameters<typeof proxy.upgrade>[1], head);
      })
      .catch((error: unknown) => {
        const refusal = toAppError(error);
        logServerSide(log, refusal, 'realtime upgrade: ');
        access.status = toHttp(refusal.code).status;
        refuseUpgrade(socket, refusal);
      });
  };
  return { serve, upgrade };
}
