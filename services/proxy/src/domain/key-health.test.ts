import { describe, expect, it } from 'vitest';
import {
  classifyStatus,
  FailureClass,
  parseRetryAfter,
  shouldSwitchLevel,
  sleepAfterFailure,
  sleepLength,
} from './key-health.js';

const MINUTE = 60_000;

describe('classifyStatus', () => {
  it('blames the key for 401/403, 429 and 5xx only', () => {
    expect(classifyStatus(200)).toEqual({ kind: 'success' });
    expect(classifyStatus(401)).toEqual({ kind: 'failure', class: FailureClass.Auth });
    expect(classifyStatus(429)).toEqual({ kind: 'failure', class: FailureClass.RateLimit });
    expect(classifyStatus(503)).toEqual({ kind: 'failure', class: FailureClass.ServerError });
    for (const status of [400, 404, 413, 422]) {
      expect(classifyStatus(status)).toEqual({ kind: 'client_error' });
    }
  });
});

describe('sleep ladder', () => {
  it('sleeps on the third consecutive failure: 5, then 15, then 30 minutes on repeat', () => {
    expect(sleepAfterFailure(FailureClass.ServerError, 1, 0)).toBe(0);
    expect(sleepAfterFailure(FailureClass.ServerError, 2, 0)).toBe(0);
    expect(sleepAfterFailure(FailureClass.ServerError, 3, 0)).toBe(5 * MINUTE);
    expect(sleepAfterFailure(FailureClass.Timeout, 3, 1)).toBe(15 * MINUTE);
    expect(sleepAfterFailure(FailureClass.Connection, 3, 2)).toBe(30 * MINUTE);
    expect(sleepLength(9)).toBe(30 * MINUTE);
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
