import { REQUEST_ID_HEADER, requestIdFrom, runWithContext } from '@gw/kit';
import type { RequestHandler } from 'express';

/** Request ids enter here (header or generated) and follow the request through gRPC and NATS. */
export const assignRequestId: RequestHandler = (req, res, next) => {
  const id = requestIdFrom(req.get(REQUEST_ID_HEADER));
  res.setHeader(REQUEST_ID_HEADER, id);
  res.locals.requestId = id;
  next();
};

/**
 * Opens the async context. Mounted after body parsing: stream callbacks would otherwise run
 * outside the context and the id would be lost on the way to gRPC.
 */
export const withRequestContext: RequestHandler = (_req, res, next) => {
  runWithContext({ requestId: String(res.locals.requestId) }, next);
};
