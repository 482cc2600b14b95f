import type { Logger } from '@gw/kit';
import type { Redis } from 'ioredis';
import { BUCKET_MS, isTokenField, WINDOW_MS, type LimitWindow } from '../../domain/limits.js';
import { LocalLimiter } from '../../domain/local-limiter.js';
import type { Admission, RateLimiter } from '../../domain/ports.js';

/**
 * The sliding windows of domain/limits.ts in Redis, every window of a call checked and counted by
 * one script in one round trip. Per window a hash `<prefix>rl:<scope>:<field>` of bucket start →
 * amount, expiring a window after its last write. ARGV: now, then per key window ms, bucket ms,
 * limit, and 1 for a request window (counted) or 0 for a token window (checked only). Answers
 * over (0/1), then per window its count (before this call) and when its oldest bucket frees.
 */
const ADMIT = `
local now = tonumber(ARGV[1])
local over = 0
local out = {}
for i = 1, #KEYS do
  local window = tonumber(ARGV[2 + (i - 1) * 4])
  local bucket = tonumber(ARGV[3 + (i - 1) * 4])
  local limit = tonumber(ARGV[4 + (i - 1) * 4])
  local counted = tonumber(ARGV[5 + (i - 1) * 4])
  local from = now - (now % bucket) - window
  local fields = redis.call('HGETALL', KEYS[i])
  local count = 0
  local oldest = nil
  for j = 1, #fields, 2 do
    local start = tonumber(fields[j])
    local amount = tonumber(fields[j + 1])
    if start < from then
      redis.call('HDEL', KEYS[i], fields[j])
    elseif amount > 0 then
      count = count + amount
      if oldest == nil or start < oldest then oldest = start end
    end
  end
  if (counted == 1 and count + 1 > limit) or (counted == 0 and count >= limit) then over = 1 end
  out[#out + 1] = count
  out[#out + 1] = oldest and (oldest + window + bucket) or now
end
if over == 0 then
  for i = 1, #KEYS do
    if tonumber(ARGV[5 + (i - 1) * 4]) == 1 then
      local window = tonumber(ARGV[2 + (i - 1) * 4])
      local bucket = tonumber(ARGV[3 + (i - 1) * 4])
      redis.call('HINCRBY', KEYS[i], now - (now % bucket), 1)
      redis.call('PEXPIRE', KEYS[i], window + bucket)
    end
  end
end
table.insert(out, 1, over)
return out
`;

/** Adds an amount to the current bucket of each key. ARGV: now, amount, then per key window ms, bucket ms. */
const ADD = `
local now = tonumber(ARGV[1])
local amount = tonumber(ARGV[2])
for i = 1, #KEYS do
  local window = tonumber(ARGV[3 + (i - 1) * 2])
  local bucket = tonumber(ARGV[4 + (i - 1) * 2])
  redis.call('HINCRBY', KEYS[i], now - (now % bucket), amount)
  redis.call('PEXPIRE', KEYS[i], window + bucket)
end
return 1
`;

type ScriptedRedis = Redis & {
  gwRateAdmit(keys: number, ...args: Array<string | number>): Promise<number[]>;
  gwRateAdd(keys: number, ...args: Array<string | number>): Promise<number>;
};

/** How often the outage warning may repeat. */
const WARN_EVERY_MS = 60_000;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;
  private readonly local = new LocalLimiter();
  private lastWarning = 0;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    // ioredis sends EVALSHA and falls back to EVAL when Redis has lost the script (NOSCRIPT).
    redis.defineCommand('gwRateAdmit', { lua: ADMIT });
    redis.defineCommand('gwRateAdd', { lua: ADD });
    this.redis = redis as ScriptedRedis;
  }

  async admit(windows: readonly LimitWindow[], now: number): Promise<Admission> {
    if (windows.length === 0) {
      return { ok: true, windows: [], retryAt: now };
    }
    const args = windows.flatMap((window) => [
      WINDOW_MS[window.field],
      BUCKET_MS[window.field],
      window.limit,
      isTokenField(window.field) ? 0 : 1,
    ]);
    try {
      const [over, ...counts] = await this.redis.gwRateAdmit(
        windows.length,
        ...this.keys(windows),
        now,
        ...args,
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
      return this.local.admit(windows, now);
    }
  }

  async refund(windows: readonly LimitWindow[], now: number): Promise<void> {
    await this.add(
      windows.filter((window) => !isTokenField(window.field)),
      -1,
      now,
      () => this.local.refund(windows, now),
    );
  }

  async addTokens(windows: readonly LimitWindow[], tokens: number, now: number): Promise<void> {
    if (tokens > 0) {
      await this.add(
        windows.filter((window) => isTokenField(window.field)),
        tokens,
        now,
        () => this.local.addTokens(windows, tokens, now),
      );
    }
  }

  private async add(
    windows: readonly LimitWindow[],
    amount: number,
    now: number,
    fallback: () => Promise<void>,
  ): Promise<void> {
    if (windows.length === 0) {
      return;
    }
    const args = windows.flatMap((window) => [WINDOW_MS[window.field], BUCKET_MS[window.field]]);
    try {
      await this.redis.gwRateAdd(windows.length, ...this.keys(windows), now, amount, ...args);
    } catch (error) {
      this.outage(error);
      await fallback();
    }
  }

  private keys(windows: readonly LimitWindow[]): string[] {
    return windows.map((window) => `${this.prefix}rl:${window.scope}:${window.field}`);
  }

  /** Redis down or slow: limits fail open to this replica's own counters (docs/decisions.md §6). */
  private outage(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning >= WARN_EVERY_MS) {
      this.lastWarning = now;
      this.log.warn({ err: error }, 'rate limits: Redis unreachable, counting on this replica only');
    }
  }
}
