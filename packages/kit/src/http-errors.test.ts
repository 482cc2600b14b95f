import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from './errors.js';
import { clientErrorOf, errorBody, realtimeErrorEvent, toHttp } from './http-errors.js';

const expected: Record<ErrorCode, [status: number, type: string]> = {
  invalid_request: [400, 'invalid_request_error'],
  insufficient_credit: [400, 'invalid_request_error'],
  unauthenticated: [401, 'authentication_error'],
  forbidden: [403, 'permission_error'],
  model_not_allowed: [403, 'permission_error'],
  not_found: [404, 'not_found_error'],
  conflict: [409, 'invalid_request_error'],
  payload_too_large: [413, 'invalid_request_error'],
  unsupported_media_type: [415, 'invalid_request_error'],
  request_timeout: [408, 'invalid_request_error'],
  rate_limited: [429, 'rate_limit_error'],
  quota_exceeded: [429, 'insufficient_quota'],
  unavailable: [503, 'api_error'],
  internal: [500, 'api_error'],
};

describe('toHttp', () => {
  it('has an expectation for every error code and no other', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it.each(Object.values(ErrorCode))('maps %s to its status and type', (code) => {
    const { status, type } = toHttp(code);
    expect([status, type]).toEqual(expected[code]);
  });
});

describe('errorBody and realtimeErrorEvent', () => {
  it('carry the same type and code over HTTP and inside a realtime session', () => {
    const error = new AppError(ErrorCode.ModelNotAllowed, 'model gpt-4o is not allowed for this key');
    const body = { message: error.message, type: 'permission_error', code: 'model_not_allowed' };
    expect(errorBody(error)).toEqual({ error: body });
    expect(JSON.parse(realtimeErrorEvent(error))).toEqual({ type: 'error', error: body });
  });
});

describe('clientErrorOf', () => {
  it('reads a library’s 4xx as the client’s error with a generic message, and leaves anything else alone', () => {
    const undecodable = Object.assign(new Error("Failed to decode param '%E0%A4%A'"), { status: 400 });
    expect(clientErrorOf(undecodable)).toMatchObject({
      code: 'invalid_request',
      message: 'the request could not be read',
    });
    expect(clientErrorOf({ statusCode: 413 })?.code).toBe('payload_too_large');
    expect(clientErrorOf(Object.assign(new Error('boom'), { status: 500 }))).toBeUndefined();
    expect(clientErrorOf(new Error('boom'))).toBeUndefined();
    expect(clientErrorOf('text')).toBeUndefined();
  });
});
