import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from './errors.js';
import { clientErrorOf, errorBody, realtimeErrorEvent, sendHttpError, toHttp } from './http-errors.js';

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

describe('sendHttpError', () => {
  /** The parts of a ServerResponse the writer uses, recording what it wrote. */
  function answerTo(url: string, originalUrl?: string) {
    const sent = { status: 0, body: undefined as unknown };
    const headers: Record<string, string> = {};
    const res = {
      headersSent: false,
      req: { url, originalUrl },
      writeHead(status: number, written: Record<string, string>) {
        sent.status = status;
        Object.assign(headers, written);
        return this;
      },
      end(text: string) {
        sent.body = JSON.parse(text);
      },
    };
    return { res: res as unknown as ServerResponse, sent, headers };
  }

  it('renders a rate limit’s details as Retry-After and the x-ratelimit headers', () => {
    const { res, headers } = answerTo('/v1/chat/completions');
    const windows = { requests: { limit: 3, remaining: 0, resetMs: 59_500 } };
    sendHttpError(
      res,
      new AppError(ErrorCode.RateLimited, 'slow down', { retryAfterSeconds: 59.5, windows }),
    );
    expect(headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'retry-after': '60',
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '1m0s',
    });
  });

  it.each([
    [new AppError(ErrorCode.Unavailable, 'down'), '1'],
    [new AppError(ErrorCode.Unavailable, 'down', { retryAfterSeconds: 30, reason: 'redis' }), '30'],
    [new AppError(ErrorCode.RateLimited, 'wait', { retryAfterSeconds: 2 }), '2'],
    [new AppError(ErrorCode.RateLimited, 'session ended'), undefined],
    [new AppError(ErrorCode.InvalidRequest, 'bad', { field: 'model' }), undefined],
  ])('says when to come back only where the error does (%s)', (error, retryAfter) => {
    const { res, headers } = answerTo('/x-users');
    sendHttpError(res, error);
    expect(headers['retry-after']).toBe(retryAfter);
    expect(Object.keys(headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('answers in the spec shape on OpenAI-style paths', () => {
    const { res, sent } = answerTo('/v1/chat/completions');
    sendHttpError(res, new AppError(ErrorCode.RateLimited, 'slow down'));
    expect(sent).toEqual({
      status: 429,
      body: { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited' } },
    });
  });

  it.each([
    ['/v1/messages', ErrorCode.ModelNotAllowed, 403, 'permission_error'],
    ['/v1/messages?beta=true', ErrorCode.Unauthenticated, 401, 'authentication_error'],
    ['/v1//messages/count_tokens', ErrorCode.RateLimited, 429, 'rate_limit_error'],
    ['/v1/messages/batches', ErrorCode.NotFound, 404, 'not_found_error'],
    ['/v1/messages', ErrorCode.PayloadTooLarge, 413, 'request_too_large'],
    ['/v1/messages', ErrorCode.QuotaExceeded, 429, 'rate_limit_error'],
  ])('answers %s in Anthropic’s shape (%s → %i %s)', (url, code, status, type) => {
    const { res, sent } = answerTo(url);
    sendHttpError(res, new AppError(code, 'refused'));
    expect(sent).toEqual({ status, body: { type: 'error', error: { type, message: 'refused' } } });
  });

  it('reads the path before routing when Express rewrote the url', () => {
    const { res, sent } = answerTo('/', '/v1/messages');
    sendHttpError(res, new AppError(ErrorCode.Unauthenticated, 'invalid API key'));
    expect(sent.body).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid API key' },
    });
  });
});
