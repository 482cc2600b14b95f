import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  AppError,
  CLIENT_ADDRESS_HEADER,
  clientOf,
  ErrorCode,
  INTERNAL_TOKEN_HEADER,
  logServerSide,
  sendHttpError,
  toAppError,
  type AddressList,
  type Logger,
} from '@gw/kit';
import { createProxyMiddleware } from 'http-proxy-middleware';

/**
 * Idle kept-alive sockets to the edge close after this, before the edge's server closes them
 * (Node's keep-alive timeout, 5 s), so a request is never written on a socket being closed.
 */
const IDLE_SOCKET_MS = 4_000;

export interface EdgePipe {
  /** Streams the request to the edge and its answer back, both ways without buffering. */
  pass(req: IncomingMessage, res: ServerResponse): void;
  /** Closes the kept-alive sockets (on shutdown, once the server stopped). */
  close(): void;
}

export interface EdgePipeOptions {
  /** EDGE_ADDR: host:port of the edge. */
  address: string;
  internalToken: string;
  /** GW_TRUSTED_PROXIES: peers whose X-Forwarded-For is believed. */
  trustedProxies: AddressList;
  log: Logger;
}

/**
 * The hop headers, written on the request itself, never in http-proxy's `proxyReq` hook, which it
 * skips for a request carrying `Expect` (curl sends `Expect: 100-continue` with every body over
 * 1 MB). The client is computed first: a copy of the client header is believed only beside the
 * right internal token, which only another gateway process holds; any other copy a client sent is
 * overwritten. Node already answered the client's `Expect` (no `checkContinue` listener), so it
 * does not go on to the edge.
 */
function setHopHeaders(req: IncomingMessage, options: EdgePipeOptions): void {
  const client = clientOf(req, options);
  delete req.headers.expect;
  req.headers[INTERNAL_TOKEN_HEADER] = options.internalToken;
  req.headers[CLIENT_ADDRESS_HEADER] = client;
}

/**
 * When the client leaves before its answer ended, the hop to the edge is cut. http-proxy aborts
 * its request only on the request's `aborted` event, which Node no longer emits once the request
 * body was read.
 */
function cutHopWhenClientLeaves(proxyReq: ClientRequest, res: ServerResponse): void {
  res.on('close', () => {
    if (!res.writableFinished && !proxyReq.destroyed) {
      proxyReq.destroy();
    }
  });
}

/**
 * When the edge's answer breaks after its headers were relayed, the client's connection is closed
 * at once: http-proxy's error hook does not fire once headers are sent, and a piped answer that
 * never ends would hold the client forever.
 */
function cutClientWhenAnswerBreaks(proxyRes: IncomingMessage, res: ServerResponse): void {
  proxyRes.on('close', () => {
    if (!proxyRes.complete && !res.destroyed) {
      res.destroy();
    }
  });
}

/**
 * The front door's way to the edge (docs/adr/0010), on http-proxy-middleware: every request the
 * proxy does not serve itself goes to the edge as it came (method, path, headers, Host too) with
 * the internal token and the client's address set by the pipe alone; the answer comes back as the
 * edge gave it, both streamed without buffering. The edge writes the access line and the metric of
 * these requests, so the pipe writes none. A client that leaves cuts the hop; a hop that breaks
 * after its headers cuts the client.
 */
export function pipeToEdge(options: EdgePipeOptions): EdgePipe {
  const { log } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: 1024, timeout: IDLE_SOCKET_MS });
  const proxy = createProxyMiddleware({
    target: `http://${options.address}`,
    agent,
    xfwd: false,
    changeOrigin: false,
    logger: {
      info: (...args: unknown[]) => log.debug({ args }, 'passed to the edge'),
      warn: (...args: unknown[]) => log.warn({ args }, 'passing to the edge'),
      error: (...args: unknown[]) => log.error({ args }, 'passing to the edge'),
    },
    on: {
      proxyReq: (proxyReq, _req, res) => cutHopWhenClientLeaves(proxyReq, res),
      proxyRes: (proxyRes, _req, res) => cutClientWhenAnswerBreaks(proxyRes, res),
      error: (error, req, res) => {
        if ('writeHead' in res && res.writableFinished) {
          // The edge answered early (a refused upload) and its connection went while the client
          // was still sending: the client has its whole answer, so the rest of its upload is read
          // and dropped rather than its connection cut mid-write.
          log.debug({ err: error }, 'edge hop closed after its answer');
          req.unpipe();
          req.resume();
          return;
        }
        log.error({ err: error }, 'edge unreachable');
        if ('writeHead' in res && !res.headersSent) {
          sendHttpError(res, new AppError(ErrorCode.Unavailable, "the gateway's API is unavailable"));
        } else {
          res.destroy();
        }
      },
    },
  });
  return {
    pass(req, res) {
      setHopHeaders(req, options);
      void proxy(req, res, (error: unknown) => {
        // Without a path filter hpm passes a request on only when it could not set up its hop.
        const known = toAppError(error);
        logServerSide(log, known);
        sendHttpError(res, known);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
