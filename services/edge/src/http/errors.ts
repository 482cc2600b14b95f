import { AppError, ErrorCode, type Logger } from '@gw/kit';
import type { ErrorRequestHandler, Response } from 'express';

/** The spec's error body: `{ error: { message, type, code } }`. */
export interface ErrorBody {
  error: { message: string; type: string; code: string };
}

/** The one code → HTTP mapping. */
export function toHttp(code: ErrorCode): { status: number; type: string } {
  switch (code) {
    case ErrorCode.InvalidRequest:
    case ErrorCode.InsufficientCredit:
      return { status: 400, type: 'invalid_request_error' };
    case ErrorCode.Unauthenticated:
      return { status: 401, type: 'authentication_error' };
    case ErrorCode.Forbidden:
      return { status: 403, type: 'permission_error' };
    case ErrorCode.NotFound:
      return { status: 404, type: 'not_found_error' };
    case ErrorCode.Conflict:
      return { status: 409, type: 'invalid_request_error' };
    case ErrorCode.PayloadTooLarge:
      return { status: 413, type: 'invalid_request_error' };
    case ErrorCode.RateLimited:
      return { status: 429, type: 'rate_limit_error' };
    case ErrorCode.QuotaExceeded:
      return { status: 429, type: 'insufficient_quota' };
    case ErrorCode.Unavailable:
      return { status: 503, type: 'api_error' };
    case ErrorCode.Internal:
      return { status: 500, type: 'api_error' };
  }
}

export function sendError(res: Response, error: AppError): void {
  const { status, type } = toHttp(error.code);
  if (error.code === ErrorCode.Unavailable) {
    res.setHeader('Retry-After', '1');
  }
  const body: ErrorBody = { error: { message: error.message, type, code: error.code } };
  res.status(status).json(body);
}

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

/** Any thrown value as an AppError: itself, a body-parser failure, or `internal` (its cause kept). */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) {
    return error;
  }
  return fromParserError(error) ?? new AppError(ErrorCode.Internal, 'internal error', undefined, error);
}

/** Last middleware: every error leaves in the spec's shape; unknown ones are logged once. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = toAppError(error);
    if (known.code === ErrorCode.Internal || known.code === ErrorCode.Unavailable) {
      log.error({ err: known.cause ?? known }, known.message);
    }
    sendError(res, known);
  };
}
