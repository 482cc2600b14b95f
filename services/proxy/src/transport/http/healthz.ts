import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyDeps } from '../../deps.js';

/** `GET /healthz`: the process serves; how many usage events wait for the stream. */
export function getHealthz(deps: ProxyDeps, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  res
    .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify({ status: 'ok', outbox: deps.outbox.size }));
  return Promise.resolve();
}
