import { describe, expect, it } from 'vitest';
import {
  classifyStatus,
  FailureClass,
  isProbeable,
  parseRetryAfter,
  shouldSwitchLevel,
  sleepAfterFailure,
} from './key-health.js';

const MINUTE = 60_000;

describe('classifyStatus', () => {
  const modelError = JSON.stringify({
    error: {
      message: 'The model `gpt-9` does not exist or you do not have access to it.',
      code: 'model_not_found',
    },
  });
  const keyError = JSON.stringify({
    error: { message: 'Incorrect API key provided', code: 'invalid_api_key' },
  });

  it('blames the key for 401, a 403 about the key, 429 and 5xx', () => {
    expect(classifyStatus(200)).toEqual({ kind: 'success' });
    expect(classifyStatus(401, modelError)).toEqual({ kind: 'failure', class: FailureClass.Auth });
    expect(classifyStatus(403, keyError)).toEqual({ kind: 'failure', class: FailureClass.Auth });
    expect(classifyStatus(403, 'forbidden')).toEqual({ kind: 'failure', class: FailureClass.Auth });
    expect(classifyStatus(429)).toEqual({ kind: 'failure', class: FailureClass.RateLimit });
    expect(classifyStatus(503)).toEqual({ kind: 'failure', class: FailureClass.ServerError });
  });

  it('blames only the key and model for a 403 about the model', () => {
    expect(classifyStatus(403, modelError)).toEqual({ kind: 'failure', class: FailureClass.Model });
    expect(classifyStatus(403, 'You are not allowed to sample from this model')).toEqual({
      kind: 'failure',
      class: FailureClass.Model,
    });
  });

  it("never blames the key for the client's own mistakes", () => {
    for (const status of [400, 404, 413, 422]) {
      expect(classifyStatus(status, keyError)).toEqual({ kind: 'client_error' });
    }
    expect(classifyStatus(400, modelError)).toEqual({ kind: 'client_error' });
    // An unknown model, and a chat model sent to /v1/completions: the same answer on every key.
    expect(classifyStatus(404, modelError)).toEqual({ kind: 'client_error' });
    const wrongEndpoint = JSON.stringify({
      error: {
        message:
          'This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?',
        type: 'invalid_request_error',
        param: 'model',
        code: null,
      },
    });
    expect(classifyStatus(404, wrongEndpoint)).toEqual({ kind: 'client_error' });
  });
});

describe('isProbeable', () => {
  it("probes keys asleep for the upstream's health, never for credentials or a model", () => {
    expect(['connection', 'timeout', 'server_error'].map(isProbeable)).toEqual([true, true, true]);
    expect(['auth', 'model', 'rate_limit', 'manual'].map(isProbeable)).toEqual([false, false, false, false]);
  });
});

describe('sleep ladder', () => {
  it('sleeps on the third consecutive failure: 5, then 15, then 30 minutes on repeat', () => {
    expect(sleepAfterFailure(FailureClass.ServerError, 1, 0)).toBe(0);
    expect(sleepAfterFailure(FailureClass.ServerError, 2, 0)).toBe(0);
    expect(sleepAfterFailure(FailureClass.ServerError, 3, 0)).toBe(5 * MINUTE);
    expect(sleepAfterFailure(FailureClass.Timeout, 3, 1)).toBe(15 * MINUTE);
    expect(sleepAfterFailure(FailureClass.Connection, 3, 2)).toBe(30 * MINUTE);
    expect(sleepAfterFailure(FailureClass.Connection, 3, 9)).toBe(30 * MINUTE);
  });

  it('sleeps a (key, model) pair on the same ladder: only after three refusals in a row', () => {
    expect(sleepAfterFailure(FailureClass.Model, 1, 0)).toBe(0);
    expect(sleepAfterFailure(FailureClass.Model, 2, 0)).toBe(0);
    expect(sleepAfterFailure(FailureClass.Model, 3, 0)).toBe(5 * MINUTE);
    expect(sleepAfterFailure(FailureClass.Model, 3, 1)).toBe(15 * MINUTE);
  });

  it('sleeps an unauthorised key for the longest step at once, and a 429 exactly its Retry-After', () => {
    expect(sleepAfterFailure(FailureClass.Auth, 1, 0)).toBe(30 * MINUTE);
    expect(sleepAfterFailure(FailureClass.RateLimit, 1, 0, 7_000)).toBe(7_000);
    expect(sleepAfterFailure(FailureClass.RateLimit, 1, 0)).toBe(0);
  });
});

describe('shouldSwitchLevel', () => {
  it('switches on the sixth failure in the window, only with a backup and only once', () => {
    expect(shouldSwitchLevel(5, true, false)).toBe(false);
    expect(shouldSwitchLevel(6, true, false)).toBe(true);
    expect(shouldSwitchLevel(6, false, false)).toBe(false);
    expect(shouldSwitchLevel(9, true, true)).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('12', 0)).toBe(12_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});
