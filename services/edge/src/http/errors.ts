import { AppError, clientErrorOf, ErrorCode, sendHttpError, type Logger } from '@gw/kit';
import type { ErrorRequestHandler } from 'express';

/** Body-parser failures carry a `type`; they become the spec's 400 and 413. */
function fromParserError(error: unknown): AppError | undefined {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.too.large') {
    return new AppError(ErrorCode.PayloadTooLarge, 'request body is too large');
  }
  if (type === 'entity.parse.failed') {
    return new AppError(ErrorCode.InvalidRequest, 'request body is not valid JSON');
  }
  if (
    (typeof type === 'string' && type.startsWith('encoding.')) ||
    type === 'charset.unsupported' ||
    type === 'request.aborted'
  ) {
    return new AppError(ErrorCode.InvalidRequest, 'request body could not be read');
  }
  return undefined;
}

/**
 * Any thrown value as an AppError: itself, a body-parser failure, another library's complaint
 * about the request (an undecodable path parameter: 400), or `internal` (its cause kept).
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) {
    return error;
  }
  return (
    fromParserError(error) ??
    clientErrorOf(error) ??
    new AppError(ErrorCode.Internal, 'internal error', undefined, error)
  );
}

/**
 * Ours (internal) is logged once with its stack; an outage (unavailable) as a warning with its
 * cause; a client's mistake (4xx) not at all: its access line says enough.
 */
export function logServerSide(log: Logger, known: AppError, prefix = ''): void {
  if (known.code === ErrorCode.Internal) {
    log.error({ err: known.cause ?? known }, `${prefix}${known.message}`);
  } else if (known.code === ErrorCode.Unavailable) {
    log.warn({ err: known.cause ?? known }, `${prefix}${known.message}`);
  }
}

/** Last middleware: every error leaves in the spec's shape, logged by logServerSide. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = toAppError(error);
    logServerSide(log, known);
    sendHttpError(res, known);
  };
}
