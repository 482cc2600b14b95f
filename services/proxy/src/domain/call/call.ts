import type { AiEndpoint, CallerIdentity, Logger, RateLimitWindows, RequestDetails } from '@gw/kit';
import type { LimitWindow } from '../limits.js';
import type { OwnerPool, PoolKey } from '../pool.js';
import type { PoolState } from '../ports/key-health-store.js';
import type { ParsedRequest } from '../request.js';
import type { RoutePlan, RouteStep } from '../route-plan.js';
import type { RelayedAnswer, Usage } from '../usage.js';

/**
 * One AI call as it moves through the pipeline, HTTP or realtime alike. Made per request and
 * handed from step to step; nothing of it is kept in the proxy's shared dependencies.
 */
export interface OpenedCall {
  endpoint: AiEndpoint;
  caller: CallerIdentity;
  pool: OwnerPool;
  /** What the call's access line says; filled in as the call moves on (account, key, Level). */
  details: RequestDetails;
  /** Its request id, passed along explicitly (the proxy keeps no request context). */
  requestId: string;
  /** Carries the request id. */
  log: Logger;
  startedAt: number;
}

/** A call past admission: its request, the windows it counts in and the route it follows. */
export interface AdmittedCall extends OpenedCall {
  request: ParsedRequest;
  windows: readonly LimitWindow[];
  admittedAt: number;
  state: PoolState;
  plan: RoutePlan;
  /** The windows at admission, for the client (the `x-ratelimit-*` headers). */
  limitWindows: RateLimitWindows;
  /** Its estimated cost, held while it is in flight; undefined when nothing is held (root). */
  reservation: HeldEstimate | undefined;
}

/** A call's estimated cost held under `id`; released once, when the call ends (`open` turns false). */
export interface HeldEstimate {
  readonly id: string;
  open: boolean;
}

/** The key and route step that served a call. */
export interface ServedBy {
  key: PoolKey;
  step: RouteStep;
}

/** Meters a served call: each usage becomes one usage event, its tokens count in the windows. */
export interface CallMeter {
  /** A whole answer relayed: its reported usage, or an estimate when upstream reported none. */
  answered(relayed: RelayedAnswer, status: number): Promise<void>;
  /** One exchange of a session whose upstream reported this usage (a realtime response). */
  reported(usage: Usage, status: number): Promise<void>;
  /** Whether every token window of the call still has room (a session ends when one is spent). */
  tokensLeft(): Promise<boolean>;
}
