import { UNMATCHED_ROUTE, type HttpObserver } from '@gw/kit';
import type { accounts } from '@gw/proto';
import type { RequestHandler } from 'express';

/** What the edge's access line and request metrics read from `res.locals` when the response closes. */
interface ObservedLocals {
  requestId?: string;
  route?: string;
  caller?: accounts.Account;
  upstreamKey?: string;
  upstreamLevel?: number;
}

/**
 * Times every request by route template and status and writes its access line (see HttpObserver);
 * mounted right after the request id. The route is named by `nameRoute` (table routes) or the AI
 * forwarding (catalogue path); anything else is unmatched.
 */
export function observeRequests(observer: HttpObserver): RequestHandler {
  return (req, res, next) => {
    const locals = res.locals as ObservedLocals;
    observer.watch(req, res, locals.requestId ?? '', () => ({
      route: locals.route ?? UNMATCHED_ROUTE,
      accountId: locals.caller ? String(locals.caller.id) : undefined,
      keyId: locals.upstreamKey,
      keyLevel: locals.upstreamLevel,
    }));
    next();
  };
}

/** Names the request by its route template, before authentication can refuse it. */
export function nameRoute(template: string): RequestHandler {
  return (_req, res, next) => {
    (res.locals as ObservedLocals).route = template;
    next();
  };
}
