import { LONGEST_SLEEP_MS, sleepLength } from '@gw/kit';

/**
 * What an upstream answer means for the key that served it, and how long a failing key sleeps.
 * The counters themselves live in Redis (shared by every proxy replica); these are the rules.
 */

export const FailureClass = {
  Auth: 'auth',
  /** A 403 about the model: this key may not use it (another may). Counts against that pair only. */
  Model: 'model',
  RateLimit: 'rate_limit',
  ServerError: 'server_error',
  Timeout: 'timeout',
  Connection: 'connection',
} as const;
export type FailureClass = (typeof FailureClass)[keyof typeof FailureClass];

export type Outcome =
  /** Served: relay it, reset the key's failure count. */
  | { kind: 'success' }
  /**
   * The client's own fault (a bad body, an unknown model, the wrong endpoint for the model: 400,
   * 404, 413, 422, …): relay it once, no failover, no key or pair blamed.
   */
  | { kind: 'client_error' }
  /** The key's or upstream's fault: try the next candidate. */
  | { kind: 'failure'; class: FailureClass };

/** Whether an upstream error body is about the model rather than the key or the request. */
export function isAboutModel(errorBody: string): boolean {
  let error: { code?: unknown; message?: unknown } = {};
  try {
    const parsed = JSON.parse(errorBody) as { error?: unknown };
    error = parsed.error && typeof parsed.error === 'object' ? parsed.error : {};
  } catch {
    return /\bmodel\b/i.test(errorBody);
  }
  return (
    (typeof error.code === 'string' && /model/i.test(error.code)) ||
    (typeof error.message === 'string' && /\bmodel\b/i.test(error.message))
  );
}

/**
 * What an upstream answer says, and about whom. Only what says something about the key counts
 * against it: 401 and a 403 about the key (invalid, revoked) are `auth`; a 403 about the model
 * (this key may not use it) counts against that key and model only; 429 and 5xx as themselves.
 * Everything else is the client's own doing and never counts: 400, 413, 422 and every 404, the
 * one about a model too (an unknown model, or OpenAI's answer to a chat model sent to
 * /v1/completions: the same on every key, so neither failover nor a sleep would help).
 */
export function classifyStatus(status: number, errorBody = ''): Outcome {
  if (status < 400) {
    return { kind: 'success' };
  }
  if (status === 401) {
    return { kind: 'failure', class: FailureClass.Auth };
  }
  if (status === 403) {
    return { kind: 'failure', class: isAboutModel(errorBody) ? FailureClass.Model : FailureClass.Auth };
  }
  if (status === 429) {
    return { kind: 'failure', class: FailureClass.RateLimit };
  }
  if (status >= 500) {
    return { kind: 'failure', class: FailureClass.ServerError };
  }
  return { kind: 'client_error' };
}

/** Failures after which a sleeping key may be probed early: the upstream may simply be back. */
export function isProbeable(failure: string): boolean {
  return (
    failure === FailureClass.Connection ||
    failure === FailureClass.Timeout ||
    failure === FailureClass.ServerError
  );
}

export const FAILURES_BEFORE_SLEEP = 3;

/**
 * After a failure: how long the key (for `model`: the key with that model) sleeps now (0 = not
 * yet); a key whose credentials are refused sleeps the longest step at once, a 429 its
 * Retry-After, anything else after FAILURES_BEFORE_SLEEP in a row. `consecutive` counts this failure;
 * `slept` is how many times the key already slept since its last success (this sleep is the
 * ladder's step `slept + 1`).
 */
export function sleepAfterFailure(
  failure: FailureClass,
  consecutive: number,
  slept: number,
  retryAfterMs?: number,
): number {
  if (failure === FailureClass.Auth) {
    return LONGEST_SLEEP_MS;
  }
  if (failure === FailureClass.RateLimit && retryAfterMs !== undefined && retryAfterMs > 0) {
    return Math.min(retryAfterMs, LONGEST_SLEEP_MS);
  }
  return consecutive >= FAILURES_BEFORE_SLEEP ? sleepLength(slept + 1) : 0;
}

/** More failures than this within one window switch a Level to its SWITCH_OVER backup. */
export const LEVEL_FAILURES_TO_SWITCH = 5;
export const LEVEL_FAILURE_WINDOW_MS = 60_000;

export function shouldSwitchLevel(
  failuresInWindow: number,
  hasBackup: boolean,
  alreadySwitched: boolean,
): boolean {
  return hasBackup && !alreadySwitched && failuresInWindow > LEVEL_FAILURES_TO_SWITCH;
}

/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) {
    return undefined;
  }
  if (/^\d+$/.test(value.trim())) {
    return Number(value.trim()) * 1000;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
