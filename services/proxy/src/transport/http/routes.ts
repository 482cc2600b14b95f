import { isAiPath, REALTIME_PATH } from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import type { HttpExchange, UpgradeExchange } from './exchange.js';
import { getHealthz } from './healthz.js';
import { relayRealtime } from './realtime.js';
import { relay } from './relay.js';
import { inspectRoute } from './route-inspect.js';

export interface HttpRoute {
  method: string;
  /** Whether the route serves this path. */
  matches(path: string): boolean;
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

/** Every HTTP endpoint of the proxy: the AI calls, and what only the edge (holding the internal token) asks. */
export const HTTP_ROUTES: readonly HttpRoute[] = [
  { method: 'GET', ...exactly('/healthz'), handle: getHealthz },
  { method: 'GET', ...exactly('/internal/route'), handle: inspectRoute },
  // The AI calls, any method (each authenticated by its gateway key).
  { method: '*', matches: isAiPath, handle: relay, refusedWhileDraining: true },
];

export const UPGRADE_ROUTES: readonly UpgradeRoute[] = [{ path: REALTIME_PATH, handle: relayRealtime }];
