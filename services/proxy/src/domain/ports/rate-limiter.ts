import type { LimitWindow } from '../limits.js';

/** What the windows of one call said at admission. */
export interface Admission {
  ok: boolean;
  /** Each window: what it holds (this call included when admitted) and when its oldest part frees. */
  windows: Array<{ window: LimitWindow; count: number; freesAt: number }>;
  /** Refused: when the first window that was over frees (epoch ms). */
  retryAt: number;
}

/** Rate-limit windows, shared by every replica (one round trip per call). */
export interface RateLimiter {
  /** Checks every window and, when none is over, counts this request in the request windows. */
  admit(windows: readonly LimitWindow[], now: number): Promise<Admission>;
  /** Takes back a request admit counted (the call was refused before any upstream). */
  refund(windows: readonly LimitWindow[], now: number): Promise<void>;
  /**
   * Counts a served call's tokens in its token windows. They may wait briefly on this replica
   * (the Redis limiter sends them with the next admission, or within 50 ms).
   */
  addTokens(windows: readonly LimitWindow[], tokens: number, now: number): Promise<void>;
}
