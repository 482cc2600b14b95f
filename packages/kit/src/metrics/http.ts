import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log.js';
import { METRIC } from './names.js';
import type { LatencyHistogram } from './histogram.js';
import type { Metrics } from './registry.js';

/** The route label of a path no route serves: raw paths never become label values. */
export const UNMATCHED_ROUTE = 'unmatched';

/** nginx's convention for a client that left before any answer was sent. */
const CLIENT_CLOSED_REQUEST = 499;

/** What only the handler knows, read when the response closes. */
export interface RequestDetails {
  /** The route template (`/x-users/:id`, `/v1/chat/completions`), or UNMATCHED_ROUTE. */
  route: string;
  accountId?: string;
  /** AI calls: the upstream key that served (or last tried) and its Level. */
  keyId?: string;
  /** Named so in the line: pino's own `level` is the line's severity. */
  keyLevel?: number;
}

/** What the observer itself knows of a request once its response closed. */
export interface RequestOutcome {
  method: string;
  status: number;
  durationMs: number;
  requestId: string;
}

/**
 * The fields of one access line, in a fixed order. Built from named fields only, never from the
 * request or its headers, so no Authorization, key or body can slip in. Taken as two objects, not
 * one merged by spreading: a spread of the handler's details (whose shape varies by route) was
 * the costliest line of the proxy's close handler.
 */
export function accessLine(
  outcome: RequestOutcome,
  details: RequestDetails,
): Record<string, string | number> {
  const fields: Record<string, string | number> = {
    method: outcome.method,
    route: details.route,
    status: outcome.status,
    durationMs: Math.round(outcome.durationMs * 10) / 10,
    requestId: outcome.requestId,
  };
  if (details.accountId) {
    fields.accountId = details.accountId;
  }
  if (details.keyId) {
    fields.keyId = details.keyId;
  }
  if (details.keyLevel !== undefined) {
    fields.keyLevel = details.keyLevel;
  }
  return fields;
}

/** Status labels as strings, made once (a label value per request would be a fresh string). */
const STATUS_LABELS = Array.from({ length: 600 }, (_, status) => String(status));

/**
 * The HTTP front of the edge and the proxy: `gw_http_request_duration_seconds{method,route,status}`
 * (its `_count` is the request rate) and one access line per request, both written when the
 * response closes (answered, failed, or left by the client). The lines follow `accessLog` (root's
 * LogEnable), at info; the metric is always kept.
 */
export class HttpObserver {
  /** Its label sets are closed: the HTTP parser knows a few dozen methods, routes are templates. */
  private readonly duration: LatencyHistogram<'method' | 'route' | 'status'>;

  constructor(
    metrics: Metrics,
    private readonly log: Logger,
    private readonly accessLog: { readonly enabled: boolean } = { enabled: true },
  ) {
    this.duration = metrics.histogram(
      METRIC.httpRequestDuration,
      'HTTP requests by method, route template and status: latency until the response closed',
      ['method', 'route', 'status'],
    );
  }

  watch(req: IncomingMessage, res: ServerResponse, requestId: string, details: () => RequestDetails): void {
    const started = performance.now();
    res.once('close', () => {
      this.record(
        req,
        res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST,
        details(),
        started,
        requestId,
      );
    });
  }

  /**
   * A WebSocket upgrade: written when the socket closes, so its duration is the whole session;
   * the status is 101 once upgraded, or the refusal's (which the handler sets in `details`).
   */
  watchUpgrade(
    req: IncomingMessage,
    socket: Duplex,
    requestId: string,
    details: () => RequestDetails & { status: number },
  ): void {
    const started = performance.now();
    socket.once('close', () => {
      const known = details();
      this.record(req, known.status, known, started, requestId);
    });
  }

  private record(
    req: IncomingMessage,
    status: number,
    known: RequestDetails,
    started: number,
    requestId: string,
  ): void {
    const durationMs = performance.now() - started;
    const method = req.method ?? 'GET';
    const statusLabel = STATUS_LABELS[status] ?? String(status);
    this.duration.labels(method, known.route, statusLabel).observe(durationMs / 1000);
    if (this.accessLog.enabled) {
      this.log.info(accessLine({ method, status, durationMs, requestId }, known), 'request');
    }
  }
}
