import { describe, expect, it } from 'vitest';
import { toAppError } from './caught-errors.js';
import { AppError, ErrorCode } from './errors.js';

describe('toAppError', () => {
  it('keeps an AppError as it is, details and all', () => {
    const raised = new AppError(ErrorCode.InvalidRequest, 'name: is required', { field: 'name' });
    expect(toAppError(raised)).toBe(raised);
  });

  it.each([
    [{ type: 'entity.too.large', status: 413 }, ErrorCode.PayloadTooLarge, 'request body is too large'],
    [
      { type: 'entity.parse.failed', status: 400 },
      ErrorCode.InvalidRequest,
      'request body is not valid JSON',
    ],
    [
      { type: 'encoding.unsupported', status: 415 },
      ErrorCode.InvalidRequest,
      'request body could not be read',
    ],
    [{ status: 415 }, ErrorCode.UnsupportedMediaType, 'unsupported request encoding or media type'],
    [{ statusCode: 400 }, ErrorCode.InvalidRequest, 'the request could not be read'],
  ])('answers a library’s complaint about the request %j with its 4xx', (thrown, code, message) => {
    const known = toAppError(Object.assign(new Error('library text quoting the input'), thrown));
    expect({ code: known.code, message: known.message }).toEqual({ code, message });
  });

  it('answers a store that did not answer as unavailable, keeping the cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const known = toAppError(cause);
    expect({ code: known.code, cause: known.cause }).toEqual({ code: ErrorCode.Unavailable, cause });
  });

  it.each([new TypeError('x is undefined'), 'a string', null, { status: 500 }])(
    'answers anything else (%s) as internal, with a generic message and the value as its cause',
    (thrown) => {
      const known = toAppError(thrown);
      expect({ code: known.code, message: known.message, cause: known.cause }).toEqual({
        code: ErrorCode.Internal,
        message: 'internal error',
        cause: thrown,
      });
    },
  );
});
