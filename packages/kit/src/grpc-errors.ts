import * as grpc from '@grpc/grpc-js';
import { errorDetails as wire } from '@gw/proto';
import { logServerSide, toAppError } from './caught-errors.js';
import {
  AppError,
  ERROR_CODE_METADATA,
  ErrorCode,
  excerpt,
  isErrorCode,
  MAX_ERROR_MESSAGE,
  RETRY_AFTER_METADATA,
  toGrpcStatus,
  type RateLimitWindow,
  type RateLimitWindows,
} from './errors.js';
import type { Logger } from './log.js';

/**
 * Binary trailer with an AppError's details (`gw.common.v1.ErrorDetails`), beside its code in
 * `gw-error-code`: the client rebuilds the error the server raised, details and all.
 */
export const ERROR_DETAILS_METADATA = 'gw-error-details-bin';

const windowToWire = (window: RateLimitWindow): wire.RateLimitWindow => ({
  limit: BigInt(window.limit),
  remaining: BigInt(window.remaining),
  resetMs: BigInt(Math.round(window.resetMs)),
});

const windowFromWire = (window: wire.RateLimitWindow): RateLimitWindow => ({
  limit: Number(window.limit),
  remaining: Number(window.remaining),
  resetMs: Number(window.resetMs),
});

/** The error's details in their wire form: each field its code's details hold, when set. */
function detailsToWire(error: AppError): wire.ErrorDetails | undefined {
  const details = error.details;
  if (details === undefined) {
    return undefined;
  }
  const message: wire.ErrorDetails = {};
  if ('field' in details) {
    message.field = details.field;
  }
  if ('retryAfterSeconds' in details) {
    message.retryAfterSeconds = details.retryAfterSeconds;
  }
  if ('reason' in details) {
    message.reason = details.reason;
  }
  if ('windows' in details && details.windows) {
    const { requests, tokens } = details.windows;
    message.requests = requests && windowToWire(requests);
    message.tokens = tokens && windowToWire(tokens);
  }
  return message;
}

function windowsFromWire(message: wire.ErrorDetails): RateLimitWindows | undefined {
  if (!message.requests && !message.tokens) {
    return undefined;
  }
  return {
    ...(message.requests ? { requests: windowFromWire(message.requests) } : {}),
    ...(message.tokens ? { tokens: windowFromWire(message.tokens) } : {}),
  };
}

/** The error of this code with the details the wire form holds for it (none it cannot hold). */
function rebuilt(code: ErrorCode, text: string, message: wire.ErrorDetails): AppError {
  const { field, retryAfterSeconds, reason } = message;
  switch (code) {
    case ErrorCode.InvalidRequest:
    case ErrorCode.Conflict:
      return new AppError(code, text, field === undefined ? undefined : { field });
    case ErrorCode.RateLimited: {
      const windows = windowsFromWire(message);
      return new AppError(
        code,
        text,
        retryAfterSeconds === undefined ? undefined : { retryAfterSeconds, ...(windows ? { windows } : {}) },
      );
    }
    case ErrorCode.Unavailable:
      return new AppError(
        code,
        text,
        retryAfterSeconds === undefined && reason === undefined
          ? undefined
          : {
              ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
              ...(reason === undefined ? {} : { reason }),
            },
      );
    case ErrorCode.Unauthenticated:
    case ErrorCode.Forbidden:
    case ErrorCode.ModelNotAllowed:
    case ErrorCode.NotFound:
    case ErrorCode.PayloadTooLarge:
    case ErrorCode.UnsupportedMediaType:
    case ErrorCode.RequestTimeout:
    case ErrorCode.InsufficientCredit:
    case ErrorCode.QuotaExceeded:
    case ErrorCode.Internal:
      return new AppError(code, text);
  }
}

/** What a peer sent as details: the details trailer, else (a peer from before it) `gw-retry-after`. */
function detailsFrom(metadata: grpc.Metadata): wire.ErrorDetails {
  const sent = metadata.get(ERROR_DETAILS_METADATA)[0];
  if (sent instanceof Buffer) {
    try {
      return wire.ErrorDetails.decode(sent);
    } catch {
      return {};
    }
  }
  const retryAfterSeconds = Number(metadata.get(RETRY_AFTER_METADATA)[0] ?? 0);
  return retryAfterSeconds > 0 ? { retryAfterSeconds } : {};
}

/** A handler's failure as the gRPC status its caller gets, the AppError's code and details in trailers. */
export function toServiceError(error: unknown, log: Logger): Partial<grpc.ServiceError> {
  const known = toAppError(error);
  if (known !== error) {
    // What the domain raised is an answer, logged by whoever shows it; anything else is logged here.
    logServerSide(log, known, 'gRPC handler: ');
  }
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_CODE_METADATA, known.code);
  const details = detailsToWire(known);
  if (details) {
    metadata.set(ERROR_DETAILS_METADATA, Buffer.from(wire.ErrorDetails.encode(details).finish()));
  }
  // Still sent for peers of the release before gw-error-details-bin; goes in the one after.
  const retryAfter = details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) {
    metadata.set(RETRY_AFTER_METADATA, String(Math.ceil(retryAfter)));
  }
  // A message quoting a huge value would not fit in the status trailer and break the connection.
  return { code: toGrpcStatus(known.code), details: excerpt(known.message, MAX_ERROR_MESSAGE), metadata };
}

/** Translates a failed call back into the AppError the server raised (or `unavailable`). */
export function fromServiceError(error: grpc.ServiceError): AppError {
  const code = String(error.metadata.get(ERROR_CODE_METADATA)[0] ?? '');
  if (isErrorCode(code)) {
    return rebuilt(code, error.details || error.message, detailsFrom(error.metadata));
  }
  if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.DEADLINE_EXCEEDED) {
    return new AppError(ErrorCode.Unavailable, 'a backing service did not answer in time', undefined, error);
  }
  return new AppError(ErrorCode.Internal, 'a backing service failed', undefined, error);
}
