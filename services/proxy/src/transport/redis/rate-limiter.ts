import { METRIC, serviceMetrics, type Logger } from '@gw/kit';
import type { Redis } from 'ioredis';
import { BUCKET_MS, isTokenField, WINDOW_MS, type LimitWindow } from '../../domain/limits.js';
import { LocalLimiter } from '../../domain/local-limiter.js';
import type { Admission, RateLimiter } from '../../domain/ports/rate-limiter.js';

/**
 * One window in Redis: a hash `<prefix>rl:<scope>:<field>` of bucket start → amount, beside the
 * running sum of its buckets (`s`) and the start of its oldest bucket that holds anything (`o`),
 * so a call reads a few fields instead of every bucket. `live` drops the buckets that left the
 * window (each bucket is dropped once, so the work per call is constant on average) and answers
 * the window's sum and its oldest non-empty bucket. The hash expires a window after its last write.
 */
const LIVE = `
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
    local amount = tonumber(redis.call('HGET', key, cursor)) or 0
    if amount > 0 then
      if cursor >= from then break end
      redis.call('HDEL', key, cursor)
      sum = sum - amount
    end
    cursor = cursor + bucket
  end
  if sum <= 0 then
    sum = 0
    cursor = current
  end
  if state.oldest and (tonumber(state.sum) ~= sum or tonumber(state.oldest) ~= cursor) then
    redis.call('HSET', key, 's', sum, 'o', cursor)
    state.sum, state.oldest = sum, cursor
  end
  return sum, cursor
end

local function add(key, at, amount, window, bucket)
  local state = stateOf(key)
  redis.call('HINCRBY', key, at, amount)
  state.sum = redis.call('HINCRBY', key, 's', amount)
  if not state.oldest then
    redis.call('HSET', key, 'o', at)
    state.oldest = at
  end
  redis.call('PEXPIRE', key, window + bucket)
end

-- Applies changes waiting on this replica: KEYS[first..], from ARGV[arg] on, per key the bucket
-- start, the amount, window ms and bucket ms. Tokens are added (a replica whose clock is behind
-- the one that wrote last adds to the oldest kept bucket); a negative amount takes a request
-- back from its bucket while that bucket still holds one.
local function apply(first, arg)
  for i = first, #KEYS do
    local at = tonumber(ARGV[arg])
    local amount = tonumber(ARGV[arg + 1])
    local window = tonumber(ARGV[arg + 2])
    local bucket = tonumber(ARGV[arg + 3])
    if amount > 0 then
      local oldest = tonumber(stateOf(KEYS[i]).oldest)
      add(KEYS[i], oldest and math.max(at, oldest) or at, amount, window, bucket)
    elseif (tonumber(redis.call('HGET', KEYS[i], at)) or 0) > 0 then
      redis.call('HINCRBY', KEYS[i], at, amount)
      local sum = redis.call('HINCRBY', KEYS[i], 's', amount)
      if known[KEYS[i]] then known[KEYS[i]].sum = sum end
    end
    arg = arg + 4
  end
end
`;

/**
 * Applies the waiting changes, then checks every window of a call and, when none is over,
 * counts the call in its request windows. KEYS: the call's windows, then the waiting changes'.
 * ARGV: now, the number of windows, per window its window ms, bucket ms, limit, and 1 for a
 * request window (counted) or 0 for a token window (checked only), then the changes (see
 * `apply`). Answers over (0/1), then per window its count (before this call) and when its
 * oldest bucket frees.
 */
const ADMIT = `${LIVE}
local now = tonumber(ARGV[1])
local windows = tonumber(ARGV[2])
apply(windows + 1, 3 + windows * 4)
local over = 0
local out = {}
for i = 1, windows do
  local window = tonumber(ARGV[3 + (i - 1) * 4])
  local bucket = tonumber(ARGV[4 + (i - 1) * 4])
  local limit = tonumber(ARGV[5 + (i - 1) * 4])
  local counted = tonumber(ARGV[6 + (i - 1) * 4])
  local count, oldest = live(KEYS[i], now, window, bucket)
  if (counted == 1 and count + 1 > limit) or (counted == 0 and count >= limit) then over = 1 end
  out[#out + 1] = count
  out[#out + 1] = count > 0 and (oldest + window + bucket) or now
end
if over == 0 then
  for i = 1, windows do
    if tonumber(ARGV[6 + (i - 1) * 4]) == 1 then
      local bucket = tonumber(ARGV[4 + (i - 1) * 4])
      add(KEYS[i], now - (now % bucket), 1, tonumber(ARGV[3 + (i - 1) * 4]), bucket)
    end
  end
end
table.insert(out, 1, over)
return out
`;

/** Applies waiting changes alone (see `apply`): ARGV is the changes. */
const APPLY = `${LIVE}
apply(1, 1)
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
    const changes = this.takeWaiting();
    const args = windows.flatMap((window) => [
      WINDOW_MS[window.field],
      BUCKET_MS[window.field],
      window.limit,
      isTokenField(window.field) ? 0 : 1,
    ]);
    try {
      const [over, ...counts] = await this.redis.gwRateAdmit(
        windows.length + changes.length,
        ...this.keys(windows),
        ...this.keys(changes.map((change) => change.window)),
        now,
        windows.length,
        ...args,
        ...changeArgs(changes),
      );
      const seen = windows.map((window, index) => {
        const count = counts[index * 2] ?? 0;
        const admitted = over === 0 && !isTokenField(window.field);
        return { window, count: admitted ? count + 1 : count, freesAt: counts[index * 2 + 1] ?? now };
      });
      const blocking = seen.filter(({ window, count }) =>
        isTokenField(window.field) ? count >= window.limit : over === 1 && count + 1 > window.limit,
      );
      return { ok: over === 0, windows: seen, retryAt: Math.max(now, ...blocking.map((w) => w.freesAt)) };
    } catch (error) {
      this.outage(error);
      await this.applyLocally(changes);
      return this.local.admit(windows, now);
    }
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
    try {
      await this.redis.gwRateApply(
        changes.length,
        ...this.keys(changes.map((change) => change.window)),
        ...changeArgs(changes),
      );
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

  private takeWaiting(): Change[] {
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

  private keys(windows: readonly LimitWindow[]): string[] {
    return windows.map((window) => `${this.prefix}rl:${window.scope}:${window.field}`);
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

function changeArgs(changes: readonly Change[]): number[] {
  return changes.flatMap(({ window, at, amount }) => [
    at,
    amount,
    WINDOW_MS[window.field],
    BUCKET_MS[window.field],
  ]);
}
