import { logServerSide, sendHttpError, toAppError, type Logger } from '@gw/kit';
import type { ErrorRequestHandler } from 'express';

/** Last middleware: every error leaves in the spec's shape, logged by the kit's logServerSide. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = toAppError(error);
    logServerSide(log, known);
    sendHttpError(res, known);
  };
}
