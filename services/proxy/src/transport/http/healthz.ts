import type { ProxyDeps } from '../../deps.js';
import type { HttpExchange } from './exchange.js';

/** `GET /healthz`: the process serves; how many usage events wait for the stream. */
export function getHealthz(deps: ProxyDeps, { res }: HttpExchange): Promise<void> {
  res
    .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify({ status: 'ok', outbox: deps.outbox.size }));
  return Promise.resolve();
}
