import { AppError, ErrorCode, sendHttpError, type Logger } from '@gw/kit';
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
 * Last middleware: every error leaves in the spec's shape through the kit's one mapping; an
 * unknown error is logged once with its stack and answered with a generic message.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = error instanceof AppError ? error : fromParserError(error);
    if (known) {
      if (known.code === ErrorCode.Internal || known.code === ErrorCode.Unavailable) {
        log.error({ err: known.cause ?? known }, known.message);
      }
      sendHttpError(res, known);
      return;
    }
    log.error({ err: error }, 'unhandled error');
    sendHttpError(res, new AppError(ErrorCode.Internal, 'internal error'));
  };
}
