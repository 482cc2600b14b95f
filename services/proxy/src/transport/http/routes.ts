import { isAiPath, isAnsweredByEdge, REALTIME_PATH } from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import type { HttpExchange, UpgradeExchange } from './exchange.js';
import { getHealthz } from './healthz.js';
import { relayRealtime } from './realtime.js';
import { relay } from './relay.js';
import { inspectRoute } from './route-inspect.js';

export interface HttpRoute {
  method: string;
  /** Whether the route serves this path (and method, for a route of any method). */
  matches(path: string, method: string): boolean;
  /**
   * The route's name in metrics and access lines, from a closed set, never the raw path; absent
   * when the handler names each request itself (the relay: by its catalogue entry).
   */
  name?: string;
  handle(deps: ProxyDeps, exchange: HttpExchange): Promise<void>;
  /** A stopping proxy refuses it (503, Retry-After) instead of starting it. */
  refusedWhileDraining?: true;
}

export interface UpgradeRoute {
  path: string;
  handle(deps: ProxyDeps, exchange: UpgradeExchange): Promise<void>;
}

const exactly = (expected: string) => ({ matches: (path: string) => path === expected, name: expected });

/**
 * Every HTTP endpoint the proxy serves itself. As the gateway's front door (EDGE_ADDR set) it
 * passes every other request to the edge, except under `/internal/` (isProxyPath).
 */
export const HTTP_ROUTES: readonly HttpRoute[] = [
  { method: 'GET', ...exactly('/internal/healthz'), handle: getHealthz },
  { method: 'GET', ...exactly('/internal/route'), handle: inspectRoute },
  // The AI calls, any method (each authenticated by its gateway key), but those the edge
  // answers itself (GET /v1/models).
  {
    method: '*',
    matches: (path, method) => isAiPath(path) && !isAnsweredByEdge(method, path),
    handle: relay,
    refusedWhileDraining: true,
  },
];

/** The proxy's own paths, never passed to the edge: a request no route serves there is 404 here. */
export function isProxyPath(path: string): boolean {
  return path.startsWith('/internal/');
}

export const UPGRADE_ROUTES: readonly UpgradeRoute[] = [{ path: REALTIME_PATH, handle: relayRealtime }];
