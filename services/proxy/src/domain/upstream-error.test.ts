import { describe, expect, it } from 'vitest';
import { clientErrorBody, maskKeys } from './upstream-error.js';

const read = (body: Buffer) => JSON.parse(body.toString('utf8')) as { error: Record<string, unknown> };

describe('clientErrorBody', () => {
  it('keeps only message, type, code and param of the error, with key-shaped text masked', () => {
    const upstream = {
      error: {
        message: 'Incorrect API key provided: sk-proj-abcdef1234567890XYZ for org-owner',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        param: null,
        organization: 'org-owner',
        key: 'sk-live-owner-secret-123456',
      },
      account: { email: 'owner@example.com' },
    };
    expect(read(clientErrorBody(Buffer.from(JSON.stringify(upstream)), 400))).toEqual({
      error: {
        message: 'Incorrect API key provided: *** for org-owner',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        param: null,
      },
    });
  });

  it('answers a generic error for a body that is not an OpenAI error', () => {
    expect(read(clientErrorBody(Buffer.from('<html>key=AIzaSyA1234567890abcdef</html>'), 422))).toEqual({
      error: {
        message: 'upstream refused the request (422)',
        type: 'invalid_request_error',
        code: null,
        param: null,
      },
    });
  });
});

describe('maskKeys', () => {
  it('masks bearer tokens, JWTs, Google keys and long tokens, and leaves model names alone', () => {
    expect(maskKeys('Bearer abc.def got eyJhbGciOi.eyJzdWIiOi.sig1 AIzaSyA1234567890abcdef')).toBe(
      '*** got *** ***',
    );
    expect(maskKeys('key 0123456789abcdef0123456789abcdef01 for gpt-4o-mini-2024-07-18')).toBe(
      'key *** for gpt-4o-mini-2024-07-18',
    );
  });
});
