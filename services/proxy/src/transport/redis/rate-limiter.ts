import { METRIC, serviceMetrics, type Logger } from '@gw/kit';
import type { Redis } from 'ioredis';
import { BUCKET_MS, isTokenField, WINDOW_MS, type LimitWindow } from '../../domain/limits.js';
import { LocalLimiter } from '../../domain/local-limiter.js';
import type { Admission, RateLimiter } from '../../domain/ports/rate-limiter.js';
import { ADMIT, APPLY } from './rate-limit-scripts.js';
import { answerOf, type ScriptPart } from './script-part.js';

type ScriptedRedis = Redis & {
  gwRateAdmit(keys: number, ...args: Array<string | number>): Promise<number[]>;
  gwRateApply(keys: number, ...args: Array<string | number>): Promise<number>;
};

/** A change to one bucket of one window, waiting to be sent. */
interface Change {
  window: LimitWindow;
  at: number;
  amount: number;
}

/** What most admissions find waiting: one empty list, not a new one each time. */
const NOTHING_WAITING: readonly Change[] = [];

const redisFallbacks = serviceMetrics().counter(
  METRIC.rateLimiterFallbacks,
  'Rate-limit operations counted on this replica alone because Redis did not answer',
);

/** How often the outage warning may repeat. */
const WARN_EVERY_MS = 60_000;
/** Tokens wait at most this long on a replica before they count for every replica. */
const TOKEN_FLUSH_MS = 50;

/**
 * The windows in Redis, one script per admission. A served call's tokens do not cost a round
 * trip of their own: they wait on this replica, merged per window and bucket, and go with the
 * next admission of any call (or alone after TOKEN_FLUSH_MS). A refund goes at once.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;
  private readonly local = new LocalLimiter();
  private waiting = new Map<string, Change>();
  private flushTimer: NodeJS.Timeout | undefined;
  private lastWarning = 0;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    // ioredis sends EVALSHA and falls back to EVAL when Redis has lost the script (NOSCRIPT).
    redis.defineCommand('gwRateAdmit', { lua: ADMIT });
    redis.defineCommand('gwRateApply', { lua: APPLY });
    this.redis = redis as ScriptedRedis;
  }

  async admit(windows: readonly LimitWindow[], now: number): Promise<Admission> {
    if (windows.length === 0) {
      return { ok: true, windows: [], retryAt: now };
    }
    const keys: string[] = [];
    const args: Array<string | number> = [now];
    const part = this.admitPart(windows, now, keys, args);
    return answerOf(part, this.redis.gwRateAdmit(keys.length, ...keys, ...args));
  }

  /**
   * The windows' part of a script (`admitWindows`), with every change waiting on this replica:
   * adds to `keys` the windows' keys, then the changes'; to `args` the number of windows and of
   * changes, then the windows' and the changes' arguments. Redis out: counted on this replica.
   */
  admitPart(
    windows: readonly LimitWindow[],
    now: number,
    keys: string[],
    args: Array<string | number>,
  ): ScriptPart<number[], Admission> {
    const changes = this.takeWaiting();
    for (const window of windows) {
      keys.push(this.key(window));
    }
    for (const change of changes) {
      keys.push(this.key(change.window));
    }
    args.push(windows.length, changes.length);
    for (const window of windows) {
      args.push(
        WINDOW_MS[window.field],
        BUCKET_MS[window.field],
        window.limit,
        isTokenField(window.field) ? 0 : 1,
      );
    }
    pushChanges(args, changes);
    return {
      // The reply: over, then each window's count and when it frees.
      read: (reply) => {
        const over = reply[0];
        const seen = windows.map((window, index) => {
          const count = reply[1 + index * 2] ?? 0;
          const admitted = over === 0 && !isTokenField(window.field);
          return { window, count: admitted ? count + 1 : count, freesAt: reply[2 + index * 2] ?? now };
        });
        const blocking = seen.filter(({ window, count }) =>
          isTokenField(window.field) ? count >= window.limit : over === 1 && count + 1 > window.limit,
        );
        return { ok: over === 0, windows: seen, retryAt: Math.max(now, ...blocking.map((w) => w.freesAt)) };
      },
      failed: async (error) => {
        // A call with no windows and nothing waiting lost nothing here: no outage to report.
        if (windows.length > 0 || changes.length > 0) {
          this.outage(error);
        }
        await this.applyLocally(changes);
        return this.local.admit(windows, now);
      },
    };
  }

  async refund(windows: readonly LimitWindow[], now: number): Promise<void> {
    for (const window of windows) {
      if (!isTokenField(window.field)) {
        this.wait({ window, at: now - (now % BUCKET_MS[window.field]), amount: -1 });
      }
    }
    await this.flush();
  }

  addTokens(windows: readonly LimitWindow[], tokens: number, now: number): Promise<void> {
    if (tokens > 0) {
      for (const window of windows) {
        if (isTokenField(window.field)) {
          this.wait({ window, at: now - (now % BUCKET_MS[window.field]), amount: tokens });
        }
      }
      this.flushTimer ??= setTimeout(() => void this.flush(), TOKEN_FLUSH_MS).unref();
    }
    return Promise.resolve();
  }

  /** Sends every waiting change now (a timer, a refund, shutdown). */
  async flush(): Promise<void> {
    const changes = this.takeWaiting();
    if (changes.length === 0) {
      return;
    }
    const keys = changes.map((change) => this.key(change.window));
    const args: number[] = [];
    pushChanges(args, changes);
    try {
      await this.redis.gwRateApply(keys.length, ...keys, ...args);
    } catch (error) {
      this.outage(error);
      await this.applyLocally(changes);
    }
  }

  private wait(change: Change): void {
    const id = `${change.window.scope}:${change.window.field}:${change.at}:${change.amount > 0 ? '+' : '-'}`;
    // Each change is made for this map alone: a second one for the same bucket adds to the first.
    const merged = this.waiting.get(id);
    if (merged) {
      merged.amount += change.amount;
    } else {
      this.waiting.set(id, change);
    }
  }

  private takeWaiting(): readonly Change[] {
    if (this.waiting.size === 0) {
      return NOTHING_WAITING;
    }
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const changes = [...this.waiting.values()];
    this.waiting = new Map();
    return changes;
  }

  /** Redis could not take the changes: this replica's own counters do. */
  private async applyLocally(changes: readonly Change[]): Promise<void> {
    for (const { window, at, amount } of changes) {
      await (amount > 0 ? this.local.addTokens([window], amount, at) : this.local.refund([window], at));
    }
  }

  private key(window: LimitWindow): string {
    return `${this.prefix}rl:${window.scope}:${window.field}`;
  }

  /** Redis down or slow: limits fail open to this replica's own counters (docs/decisions.md §6). */
  private outage(error: unknown): void {
    redisFallbacks.inc();
    const now = Date.now();
    if (now - this.lastWarning >= WARN_EVERY_MS) {
      this.lastWarning = now;
      this.log.warn({ err: error }, 'rate limits: Redis unreachable, counting on this replica only');
    }
  }
}

/** Each change's arguments to `apply`, after the ones already in `args`. */
function pushChanges(args: Array<string | number>, changes: readonly Change[]): void {
  for (const { window, at, amount } of changes) {
    args.push(at, amount, WINDOW_MS[window.field], BUCKET_MS[window.field]);
  }
}
