import { Agent, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import {
  AppError,
  clientAddress,
  ErrorCode,
  INTERNAL_TOKEN_HEADER,
  sendHttpError,
  splitAddress,
  type AddressList,
} from '@gw/kit';

/**
 * The client's address as the front door computed it. The edge believes it only from a request
 * that carries the internal token too; a client's own copy never reaches the edge.
 */
const CLIENT_ADDRESS_HEADER = 'x-gw-client';

/** Headers of one connection, not of the request or its answer: each hop sets its own. */
const CONNECTION_HEADERS = ['connection', 'keep-alive'];

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
}

/** A request or answer header as one value (Node joins repeated ones with commas). */
function joined(message: IncomingMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `rawHeaders` less the connection's own headers (and those the Connection header names) and `dropped`. */
function rawHeadersWithout(message: IncomingMessage, dropped: readonly string[] = []): string[] {
  const named = (joined(message, 'connection') ?? '').split(',').map((name) => name.trim().toLowerCase());
  const skip = new Set([...CONNECTION_HEADERS, ...named, ...dropped]);
  const kept: string[] = [];
  const raw = message.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] ?? '';
    if (!skip.has(name.toLowerCase())) {
      kept.push(name, raw[index + 1] ?? '');
    }
  }
  return kept;
}

/**
 * The front door's way to the edge (docs/adr/0010): every request the proxy does not serve itself
 * goes to the edge as it came (method, path, headers, Host too) with the internal token and the
 * client's address added, through a plain `node:http` pipe; the answer comes back as the edge
 * gave it. The edge writes the access line and the metric of these requests, so the pipe writes
 * none. A client that leaves cuts the hop; a hop that breaks after its headers cuts the client.
 */
export function pipeToEdge(options: EdgePipeOptions): EdgePipe {
  const { host, port } = splitAddress(options.address);
  const agent = new Agent({ keepAlive: true, maxSockets: 1024, timeout: IDLE_SOCKET_MS });
  return {
    pass(req, res) {
      const client = clientAddress(
        req.socket.remoteAddress ?? '',
        joined(req, 'x-forwarded-for'),
        options.trustedProxies,
      );
      const hop = request({
        agent,
        host,
        port,
        method: req.method,
        path: req.url,
        setHost: false,
        headers: [
          ...rawHeadersWithout(req, [INTERNAL_TOKEN_HEADER, CLIENT_ADDRESS_HEADER]),
          INTERNAL_TOKEN_HEADER,
          options.internalToken,
          CLIENT_ADDRESS_HEADER,
          client,
        ],
      });
      hop.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, rawHeadersWithout(answer));
        // An answer that breaks midway cuts the client (pipeline destroys `res`), and a client
        // that leaves midway cuts the answer.
        pipeline(answer, res, () => undefined);
      });
      hop.on('error', () => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        sendHttpError(res, new AppError(ErrorCode.Unavailable, "the gateway's API is unavailable"));
      });
      // A client that leaves before its answer is done cuts the hop.
      res.on('close', () => {
        if (!res.writableFinished) {
          hop.destroy();
        }
      });
      req.pipe(hop);
    },
    close() {
      agent.destroy();
    },
  };
}
