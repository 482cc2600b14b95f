import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AppError, detailsOf, ErrorCode, excerpt, isErrorCode, toGrpcStatus } from './errors.js';

/** One row per code: adding a code without a row fails the type check and the completeness test. */
const EXPECTED_STATUS: Record<ErrorCode, status> = {
  invalid_request: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  model_not_allowed: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ALREADY_EXISTS,
  payload_too_large: status.INVALID_ARGUMENT,
  unsupported_media_type: status.INVALID_ARGUMENT,
  request_timeout: status.DEADLINE_EXCEEDED,
  insufficient_credit: status.INVALID_ARGUMENT,
  rate_limited: status.RESOURCE_EXHAUSTED,
  quota_exceeded: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
};

describe('toGrpcStatus', () => {
  it('has an expectation for every error code and no other', () => {
    expect(Object.keys(EXPECTED_STATUS).sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it.each(Object.entries(EXPECTED_STATUS))('maps %s to gRPC status %i', (code, expected) => {
    expect(toGrpcStatus(code as ErrorCode)).toBe(expected);
  });

  it('uses the standard gRPC numbers (not_found 5, rate_limited 8)', () => {
    expect(toGrpcStatus(ErrorCode.NotFound)).toBe(5);
    expect(toGrpcStatus(ErrorCode.RateLimited)).toBe(8);
  });
});

describe('isErrorCode', () => {
  it.each(Object.values(ErrorCode))('accepts %s', (code) => {
    expect(isErrorCode(code)).toBe(true);
  });

  it.each(['', 'NotFound', 'NOT_FOUND', 'not-found', 'toString', '__proto__', 'internal '])(
    'refuses %j',
    (value) => {
      expect(isErrorCode(value)).toBe(false);
    },
  );
});

describe('AppError', () => {
  it('carries its code, message and details', () => {
    const error = new AppError(ErrorCode.RateLimited, 'slow down', { retryAfterSeconds: 7 });

    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(AppError);
    expect(error.name).toBe('AppError');
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe('slow down');
    expect(error.details).toEqual({ retryAfterSeconds: 7 });
    expect(error.stack).toContain('slow down');
  });

  it('leaves details and cause undefined when not given', () => {
    const error = new AppError(ErrorCode.NotFound, 'no such account');

    expect(error.details).toBeUndefined();
    expect(error.cause).toBeUndefined();
    expect('cause' in error).toBe(false);
  });

  it('keeps the cause it wraps', () => {
    const cause = new Error('connection reset');
    const error = new AppError(ErrorCode.Unavailable, 'accounts did not answer', undefined, cause);

    expect(error.cause).toBe(cause);
    expect(error.details).toBeUndefined();
  });
});

describe('detailsOf', () => {
  it('gives the details only for the code asked about', () => {
    const error = new AppError(ErrorCode.Conflict, 'Name is already taken', { field: 'name' });
    expect(detailsOf(error, ErrorCode.Conflict)).toEqual({ field: 'name' });
    expect(detailsOf(error, ErrorCode.InvalidRequest)).toBeUndefined();
  });
});

describe('excerpt', () => {
  it('keeps a short text and cuts a long one to max code points', () => {
    expect(excerpt('gpt-4o')).toBe('gpt-4o');
    expect(excerpt('x'.repeat(100_000), 10)).toBe(`${'x'.repeat(10)}…`);
    expect(excerpt('😀'.repeat(50), 3)).toBe('😀😀😀…');
  });
});
