import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, resetText } from './rate-limit-headers.js';

describe('rateLimitHeaders', () => {
  it('writes each kind of window as OpenAI clients read it', () => {
    expect(
      rateLimitHeaders({
        requests: { limit: 100, remaining: 1, resetMs: 3_600_000 },
        tokens: { limit: 1000, remaining: 750, resetMs: 360_000 },
      }),
    ).toEqual({
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-reset-requests': '1h0m0s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '750',
      'x-ratelimit-reset-tokens': '6m0s',
    });
  });

  it('writes nothing for a kind the call is not held to', () => {
    expect(rateLimitHeaders({ tokens: { limit: 5, remaining: 0, resetMs: 20 } })).toEqual({
      'x-ratelimit-limit-tokens': '5',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '20ms',
    });
    expect(rateLimitHeaders({})).toEqual({});
  });
});

describe('resetText', () => {
  it('writes milliseconds under a second, then hours, minutes and seconds rounded up', () => {
    expect([resetText(-5), resetText(20), resetText(1_000), resetText(61_000), resetText(3_600_001)]).toEqual(
      ['0ms', '20ms', '1s', '1m1s', '1h0m1s'],
    );
  });
});
