import { METRIC, serviceMetrics, type Logger } from '@gw/kit';
import type { Redis } from 'ioredis';
import { BUCKET_MS, isTokenField, WINDOW_MS, type LimitWindow } from '../../domain/limits.js';
import { LocalLimiter } from '../../domain/local-limiter.js';
import type { Admission, RateLimiter } from '../../domain/ports/rate-limiter.js';
import { INT_LUA } from './lua-int.js';
import { answerOf, type ScriptPart } from './script-part.js';

/**
 * One window in Redis: a hash `<prefix>rl:<scope>:<field>` of bucket start → amount, beside the
 * running sum of its buckets (`s`) and the start of its oldest bucket that holds anything (`o`),
 * so a call reads a few fields instead of every bucket. `live` drops the buckets that left the
 * window (each bucket is dropped once, so the work per call is constant on average) and answers
 * the window's sum and its oldest non-empty bucket. The hash expires a window after its last write.
 */
const LIVE = `${INT_LUA}
-- Each window's sum and oldest bucket as this script last read or wrote them (false: absent), so a
-- key named twice in one script (a waiting change and a window) is read once and never re-read.
local known = {}

local function stateOf(key)
  if not known[key] then
    local fields = redis.call('HMGET', key, 's', 'o')
    known[key] = { sum = fields[1], oldest = fields[2] }
  end
  return known[key]
end

local function live(key, now, window, bucket)
  local current = now - (now % bucket)
  local from = current - window
  local state = stateOf(key)
  local sum = tonumber(state.sum) or 0
  local cursor = tonumber(state.oldest) or current
  while sum > 0 and cursor < current do
    local amount = tonumber(redis.call('HGET', key, int(cursor))) or 0
    if amount > 0 then
      if cursor >= from then break end
      redis.call('HDEL', key, int(cursor))
      sum = sum - amount
    end
    cursor = cursor + bucket
  end
  if sum <= 0 then
    sum = 0
    cursor = current
  end
  if state.oldest and (tonumber(state.sum) ~= sum or tonumber(state.oldest) ~= cursor) then
    redis.call('HSET', key, 's', int(sum), 'o', int(cursor))
    state.sum, state.oldest = sum, cursor
  end
  return sum, cursor
end

local function add(key, at, amount, window, bucket)
  local state = stateOf(key)
  redis.call('HINCRBY', key, int(at), int(amount))
  state.sum = redis.call('HINCRBY', key, 's', int(amount))
  if not state.oldest then
    redis.call('HSET', key, 'o', int(at))
    state.oldest = at
  end
  redis.call('PEXPIRE', key, int(window + bucket))
end

-- Applies changes waiting on this replica: KEYS[first..last], from ARGV[arg] on, per key the
-- bucket start, the amount, window ms and bucket ms. Tokens are added (a replica whose clock is
-- behind the one that wrote last adds to the oldest kept bucket); a negative amount takes a request
-- back from its bucket while that bucket still holds one.
local function apply(first, last, arg)
  for i = first, last do
    local at = tonumber(ARGV[arg])
    local amount = tonumber(ARGV[arg + 1])
    local window = tonumber(ARGV[arg + 2])
    local bucket = tonumber(ARGV[arg + 3])
    if amount > 0 then
      local oldest = tonumber(stateOf(KEYS[i]).oldest)
      add(KEYS[i], oldest and math.max(at, oldest) or at, amount, window, bucket)
    elseif (tonumber(redis.call('HGET', KEYS[i], int(at))) or 0) > 0 then
      redis.call('HINCRBY', KEYS[i], int(at), int(amount))
      local sum = redis.call('HINCRBY', KEYS[i], 's', int(amount))
      if known[KEYS[i]] then known[KEYS[i]].sum = sum end
    end
    arg = arg + 4
  end
end
`;

/**
 * Lua, `admitWindows(now, windows, changes, arg)`: applies the waiting changes, then checks every
 * window of a call and, when none is over, counts the call in its request windows. KEYS[1..]: the
 * call's `windows`, then the `changes` waiting; ARGV from `arg`: per window its window ms, bucket
 * ms, limit, and 1 for a request window (counted) or 0 for a token window (checked only), then the
 * changes (see `apply`). Answers over (0/1), then per window its count (before this call) and when
 * its oldest bucket frees. Its keys come first in every script that runs it (`admission.ts` too).
 */
export const ADMIT_WINDOWS_LUA = `${LIVE}
local function admitWindows(now, windows, changes, arg)
  apply(windows + 1, windows + changes, arg + windows * 4)
  local over = 0
  local out = { 0 }
  for i = 1, windows do
    local at = arg + (i - 1) * 4
    local window = tonumber(ARGV[at])
    local bucket = tonumber(ARGV[at + 1])
    local limit = tonumber(ARGV[at + 2])
    local counted = tonumber(ARGV[at + 3])
    local count, oldest = live(KEYS[i], now, window, bucket)
    if (counted == 1 and count + 1 > limit) or (counted == 0 and count >= limit) then over = 1 end
    out[#out + 1] = count
    out[#out + 1] = count > 0 and (oldest + window + bucket) or now
  end
  if over == 0 then
    for i = 1, windows do
      local at = arg + (i - 1) * 4
      if tonumber(ARGV[at + 3]) == 1 then
        local bucket = tonumber(ARGV[at + 1])
        add(KEYS[i], now - (now % bucket), 1, tonumber(ARGV[at]), bucket)
      end
    end
  end
  out[1] = over
  return out
end
`;

/** The windows alone (a session's token check): ARGV now, then `admitPart`'s arguments. */
const ADMIT = `${ADMIT_WINDOWS_LUA}
return admitWindows(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), 4)
`;

/** Applies waiting changes alone (see `apply`): ARGV is the changes. */
const APPLY = `${LIVE}
apply(1, #KEYS, 1)
return 1
`;

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
    const merged = this.waiting.get(id);
    this.waiting.set(id, merged ? { ...merged, amount: merged.amount + change.amount } : change);
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
