import { status as GrpcStatus } from '@grpc/grpc-js';

/** The closed set of error codes. Only the domain chooses one; transports map them. */
export const ErrorCode = {
  InvalidRequest: 'invalid_request',
  Unauthenticated: 'unauthenticated',
  Forbidden: 'forbidden',
  /** The model (as named, or after the account's mapping) is outside the caller's AllowModels. */
  ModelNotAllowed: 'model_not_allowed',
  NotFound: 'not_found',
  Conflict: 'conflict',
  PayloadTooLarge: 'payload_too_large',
  /** A body in a format the endpoint does not take (a JSON endpoint called without JSON). */
  UnsupportedMediaType: 'unsupported_media_type',
  /** The client took too long to send its request. */
  RequestTimeout: 'request_timeout',
  InsufficientCredit: 'insufficient_credit',
  RateLimited: 'rate_limited',
  /** Spend stopped: the month's HardLimit is reached or the balance is at the API floor. */
  QuotaExceeded: 'quota_exceeded',
  Unavailable: 'unavailable',
  Internal: 'internal',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const codes = new Set<string>(Object.values(ErrorCode));
export function isErrorCode(value: string): value is ErrorCode {
  return codes.has(value);
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}

/**
 * At most `max` characters (code points) of something a client sent, for an error message: a
 * message names what is wrong and quotes a short excerpt, never the whole of a long value.
 */
export function excerpt(text: string, max = 40): string {
  if (text.length <= max) {
    return text;
  }
  return `${Array.from(text.slice(0, max * 2))
    .slice(0, max)
    .join('')}…`;
}

/** Longest error message that crosses a service boundary; longer ones are cut (a backstop). */
export const MAX_ERROR_MESSAGE = 1024;

/** Metadata key that carries the AppError code across gRPC. */
export const ERROR_CODE_METADATA = 'gw-error-code';

/** gRPC trailer with an error's `retryAfterSeconds`, so a 429 or 503 keeps its Retry-After across a hop. */
export const RETRY_AFTER_METADATA = 'gw-retry-after';

export function toGrpcStatus(code: ErrorCode): GrpcStatus {
  switch (code) {
    case ErrorCode.InvalidRequest:
    case ErrorCode.InsufficientCredit:
    case ErrorCode.PayloadTooLarge:
    case ErrorCode.UnsupportedMediaType:
      return GrpcStatus.INVALID_ARGUMENT;
    case ErrorCode.RequestTimeout:
      return GrpcStatus.DEADLINE_EXCEEDED;
    case ErrorCode.Unauthenticated:
      return GrpcStatus.UNAUTHENTICATED;
    case ErrorCode.Forbidden:
    case ErrorCode.ModelNotAllowed:
      return GrpcStatus.PERMISSION_DENIED;
    case ErrorCode.NotFound:
      return GrpcStatus.NOT_FOUND;
    case ErrorCode.Conflict:
      return GrpcStatus.ALREADY_EXISTS;
    case ErrorCode.RateLimited:
    case ErrorCode.QuotaExceeded:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case ErrorCode.Unavailable:
      return GrpcStatus.UNAVAILABLE;
    case ErrorCode.Internal:
      return GrpcStatus.INTERNAL;
  }
}
