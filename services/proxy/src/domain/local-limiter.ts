import type { Admission, RateLimiter } from './ports/rate-limiter.js';
import { BUCKET_MS, isOver, isTokenField, oldestCounted, windowCount, type LimitWindow } from './limits.js';

/** At most this many counters are kept; the least recently used go first. */
const MAX_COUNTERS = 100_000;

/**
 * The limiter held in this process's memory: the fallback while Redis cannot be reached
 * (docs/decisions.md §6), with the very arithmetic of the shared one. Each replica counts alone,
 * so during an outage the gateway admits at most (replicas × limit) per window.
 */
export class LocalLimiter implements RateLimiter {
  private readonly counters = new Map<string, Map<number, number>>();

  admit(windows: readonly LimitWindow[], now: number): Promise<Admission> {
    const seen = windows.map((window) => ({
      window,
      ...windowCount(window.field, this.buckets(window, now), now),
    }));
    const over = seen.filter(({ window, count }) => isOver(window, count));
    if (over.length > 0) {
      return Promise.resolve({ ok: false, windows: seen, retryAt: Math.max(...over.map((w) => w.freesAt)) });
    }
    for (const window of windows) {
      if (!isTokenField(window.field)) {
        this.add(window, 1, now);
      }
    }
    return Promise.resolve({
      ok: true,
      windows: seen.map((w) => (isTokenField(w.window.field) ? w : { ...w, count: w.count + 1 })),
      retryAt: now,
    });
  }

  /** Takes a request back from the bucket it was counted in, while that bucket still holds one. */
  refund(windows: readonly LimitWindow[], now: number): Promise<void> {
    for (const window of windows) {
      const bucket = now - (now % BUCKET_MS[window.field]);
      if (!isTokenField(window.field) && (this.buckets(window, now).get(bucket) ?? 0) > 0) {
        this.add(window, -1, now);
      }
    }
    return Promise.resolve();
  }

  addTokens(windows: readonly LimitWindow[], tokens: number, now: number): Promise<void> {
    for (const window of windows) {
      if (isTokenField(window.field) && tokens > 0) {
        this.add(window, tokens, now);
      }
    }
    return Promise.resolve();
  }

  private key(window: LimitWindow): string {
    return `${window.scope}:${window.field}`;
  }

  /** The window's buckets, the expired ones dropped. */
  private buckets(window: LimitWindow, now: number): Map<number, number> {
    const key = this.key(window);
    const buckets = this.counters.get(key) ?? new Map<number, number>();
    const from = oldestCounted(window.field, now);
    for (const start of buckets.keys()) {
      if (start < from) {
        buckets.delete(start);
      }
    }
    // Re-inserting keeps the map in least-recently-used order.
    this.counters.delete(key);
    this.counters.set(key, buckets);
    if (this.counters.size > MAX_COUNTERS) {
      const oldest = this.counters.keys().next().value;
      if (oldest !== undefined) {
        this.counters.delete(oldest);
      }
    }
    return buckets;
  }

  private add(window: LimitWindow, amount: number, now: number): void {
    const buckets = this.buckets(window, now);
    const bucket = now - (now % BUCKET_MS[window.field]);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + amount);
  }
}
