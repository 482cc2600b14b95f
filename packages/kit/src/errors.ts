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

/** The tightest window of one kind (requests or tokens): OpenAI's `x-ratelimit-*` headers say it. */
export interface RateLimitWindow {
  limit: number;
  remaining: number;
  /** Milliseconds until its oldest counted part stops counting. */
  resetMs: number;
}

/** The windows a call is held to, at its admission or its refusal, each kind's tightest. */
export interface RateLimitWindows {
  requests?: RateLimitWindow;
  tokens?: RateLimitWindow;
}

/**
 * What an error of each code carries beside its message, as data: the transports render it (the
 * HTTP mapper writes Retry-After and `x-ratelimit-*` from it) and gRPC carries it across a hop.
 * A code mapped to `undefined` carries nothing; a wrong shape for a code does not compile.
 */
export interface ErrorDetails {
  /** The request field that is wrong, as the client named it. */
  invalid_request: { field: string };
  unauthenticated: undefined;
  forbidden: undefined;
  model_not_allowed: undefined;
  not_found: undefined;
  /** The field whose value another record already holds (`name`, `email`). */
  conflict: { field: string };
  payload_too_large: undefined;
  unsupported_media_type: undefined;
  request_timeout: undefined;
  insufficient_credit: undefined;
  rate_limited: { retryAfterSeconds: number; windows?: RateLimitWindows };
  quota_exceeded: undefined;
  /** `reason`: what is down, for the operator's log (the client never sees it). */
  unavailable: { retryAfterSeconds?: number; reason?: string };
  internal: undefined;
}

/** The constructor's arguments, one tuple per code, so `details` must fit the code given. */
type AppErrorArgs = {
  [C in ErrorCode]: [code: C, message: string, details?: ErrorDetails[C], cause?: unknown];
}[ErrorCode];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails[ErrorCode] | undefined;

  constructor(...[code, message, details, cause]: AppErrorArgs) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}

/** The error's details when it has this code (the one place a code narrows its details). */
export function detailsOf<C extends ErrorCode>(error: AppError, code: C): ErrorDetails[C] | undefined {
  return error.code === code ? (error.details as ErrorDetails[C] | undefined) : undefined;
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

/**
 * gRPC trailer with an error's `retryAfterSeconds`, as peers of the release before the details
 * trailer (`gw-error-details-bin`, grpc-errors.ts) send and read it; it goes in the release after.
 */
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
