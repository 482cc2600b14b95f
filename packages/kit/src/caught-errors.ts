import { isStoreUnavailable } from './dependency-errors.js';
import { AppError, ErrorCode } from './errors.js';
import { clientErrorOf } from './http-errors.js';
import type { Logger } from './log.js';

/** Body-parser failures carry a `type`; they become the spec's 400 and 413. */
function fromParserError(error: unknown): AppError | undefined {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
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
 * Anything a transport caught as the AppError it answers with, the one way every transport (HTTP,
 * WebSocket, gRPC) does it: an AppError as it is; a body parser's or another library's complaint
 * about the request (an undecodable path parameter) as its 4xx; a backing store that did not
 * answer as `unavailable`; anything else as `internal`, the caught value kept as its cause.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) {
    return error;
  }
  const refused = fromParserError(error) ?? clientErrorOf(error);
  if (refused) {
    return refused;
  }
  if (isStoreUnavailable(error)) {
    return new AppError(ErrorCode.Unavailable, 'a backing store did not answer', undefined, error);
  }
  return new AppError(ErrorCode.Internal, 'internal error', undefined, error);
}

/**
 * Logs what a transport answers with (CONTRIBUTING.md, Metrics and logs): ours (`internal`) once
 * with its stack, an outage (`unavailable`) as a warning with its cause, a client's mistake (4xx)
 * not at all: its access line says enough.
 */
export function logServerSide(log: Logger, known: AppError, prefix = ''): void {
  if (known.code === ErrorCode.Internal) {
    log.error({ err: known.cause ?? known }, `${prefix}${known.message}`);
  } else if (known.code === ErrorCode.Unavailable) {
    log.warn({ err: known.cause ?? known }, `${prefix}${known.message}`);
  }
}
