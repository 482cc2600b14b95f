import type { ProxyDeps } from '../../deps.js';
import type { HttpExchange } from './exchange.js';

/**
 * `GET /internal/healthz`: the process serves; how many usage events wait for the stream; how many owners
 * are served from their last good key pool because reloading it failed (`status: degraded`).
 */
export function getHealthz(deps: ProxyDeps, { res }: HttpExchange): Promise<void> {
  const stale = deps.keys.staleOwners();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(
    JSON.stringify({
      status: stale > 0 ? 'degraded' : 'ok',
      outbox: deps.outbox.size,
      staleKeyPools: stale,
    }),
  );
  return Promise.resolve();
}
