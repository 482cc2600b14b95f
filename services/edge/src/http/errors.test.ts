import { ErrorCode } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { toHttp } from './errors.js';

const expected: Record<ErrorCode, number> = {
  invalid_request: 400,
  insufficient_credit: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  quota_exceeded: 429,
  unavailable: 503,
  internal: 500,
};

describe('toHttp', () => {
  it.each(Object.values(ErrorCode))('maps %s to the spec status', (code) => {
    expect(toHttp(code).status).toBe(expected[code]);
  });

  it('gives every code an error type', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(toHttp(code).type).toMatch(/^[a-z_]+$/);
    }
  });
});
