import { PatternTable, type RateLimitWindows } from '@gw/kit';

/**
 * Request and token rate limits: which windows a call is held to, and the sliding-window
 * arithmetic every store applies (the Redis script and the local fallback compute the same).
 *
 * Algorithm: a sliding window counted in buckets (60 per minute and per hour window, 96 per day).
 * A call counts every bucket that overlaps the trailing window, the partly expired oldest one in
 * full. So no trailing window ever admits more than the limit (the count is never below the true
 * one), and a steady stream at or above the limit still gets at least (1 − 1/buckets) of it:
 * 98.3 % for minute and hour windows, 99 % for day windows. Requests count when admitted;
 * tokens count once the call's usage is known, and a call is refused while a token window is
 * already full.
 */
export const LIMIT_FIELDS = ['rpm', 'rph', 'rpd', 'tpm', 'tph', 'tpd'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];
export type Limits = Partial<Record<LimitField, number>>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const WINDOW_MS: Readonly<Record<LimitField, number>> = {
  rpm: MINUTE,
  rph: HOUR,
  rpd: DAY,
  tpm: MINUTE,
  tph: HOUR,
  tpd: DAY,
};

export const BUCKET_MS: Readonly<Record<LimitField, number>> = {
  rpm: 1_000,
  rph: MINUTE,
  rpd: 15 * MINUTE,
  tpm: 1_000,
  tph: MINUTE,
  tpd: 15 * MINUTE,
};

export function isTokenField(field: LimitField): boolean {
  return field.startsWith('t');
}

/** One window a call is held to: a counter (`scope`, `field`) and its limit. */
export interface LimitWindow {
  /** `a:<account>` for the account's own limits, `m:<account>:<pattern>` for a model's. */
  scope: string;
  field: LimitField;
  limit: number;
}

/** Where a call's limits come from, in priority order for the per-model ones. */
export interface LimitSources {
  accountId: string;
  /** The account's RPM…TPD (0 or absent: unlimited). */
  account: Limits;
  /** ModelLimits of the account, MODEL_LIMITS of the owner, and the system defaults. */
  modelLimits: ReadonlyArray<PatternTable<Limits>>;
  /** Each ancestor's ModelLimits, nearest first: they bind the account as its own do. */
  inherited?: ReadonlyArray<PatternTable<Limits>>;
}

/** A ModelLimits object as a pattern table; entries that are not limit objects are skipped. */
export function modelLimitTable(value: unknown): PatternTable<Limits> {
  const entries: Array<[string, Limits]> = [];
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [pattern, raw] of Object.entries(value as Record<string, unknown>)) {
      if (raw && typeof raw === 'object') {
        const limits: Limits = {};
        for (const field of LIMIT_FIELDS) {
          const amount = (raw as Record<string, unknown>)[field];
          if (typeof amount === 'number' && Number.isInteger(amount) && amount > 0) {
            limits[field] = amount;
          }
        }
        entries.push([pattern, limits]);
      }
    }
  }
  return new PatternTable(entries);
}

/** ModelLimits written as JSON text (the stored form); anything unreadable is no limits. */
export function modelLimitTableOf(json: string): PatternTable<Limits> {
  try {
    return modelLimitTable(json ? JSON.parse(json) : {});
  } catch {
    return modelLimitTable({});
  }
}

/** A table's most specific pattern matching the model that sets the field. */
function firstSetting(
  table: PatternTable<Limits>,
  model: string,
  field: LimitField,
): { pattern: string; limit: number } | undefined {
  for (const match of table.matchesOf(model)) {
    const limit = match.value[field];
    if (limit !== undefined) {
      return { pattern: match.pattern, limit };
    }
  }
  return undefined;
}

/**
 * The account's ModelLimits and each of its ancestors' bind the call together (docs/decisions.md
 * §13): every pattern one of them matches with is a window of the account's, at the smallest
 * limit set for that pattern. A child cannot lift its parent's limit by clearing or widening its
 * own.
 */
function layeredWindows(sources: LimitSources, model: string, field: LimitField): LimitWindow[] {
  const layers = [sources.modelLimits[0], ...(sources.inherited ?? [])];
  const smallest = new Map<string, number>();
  for (const table of layers) {
    const found = table && firstSetting(table, model, field);
    if (found) {
      smallest.set(found.pattern, Math.min(found.limit, smallest.get(found.pattern) ?? found.limit));
    }
  }
  return [...smallest].map(([pattern, limit]) => ({
    scope: `m:${sources.accountId}:0:${pattern}`,
    field,
    limit,
  }));
}

/**
 * The windows of one call to `model`: the account's own, and per model, field by field, the
 * account's and its ancestors' ModelLimits that set that field (`layeredWindows`), or where none
 * does the first of owner MODEL_LIMITS, then system defaults, with a pattern matching the model
 * that sets it, its most specific such pattern. A per-model window counts every model its
 * pattern covers.
 */
export function windowsFor(sources: LimitSources, model: string): LimitWindow[] {
  const windows: LimitWindow[] = [];
  for (const field of LIMIT_FIELDS) {
    const own = sources.account[field];
    if (own !== undefined && own > 0) {
      windows.push({ scope: `a:${sources.accountId}`, field, limit: own });
    }
  }
  if (model === '') {
    return windows;
  }
  for (const field of LIMIT_FIELDS) {
    const layered = layeredWindows(sources, model, field);
    if (layered.length > 0) {
      windows.push(...layered);
      continue;
    }
    for (const [index, table] of sources.modelLimits.entries()) {
      const found = index > 0 ? firstSetting(table, model, field) : undefined;
      if (found) {
        windows.push({
          scope: `m:${sources.accountId}:${index}:${found.pattern}`,
          field,
          limit: found.limit,
        });
        break;
      }
    }
  }
  return windows;
}

/** A window's counted buckets: start time (ms) → amount. */
export type Buckets = ReadonlyMap<number, number>;

/** The first bucket start a call at `now` still counts for this window. */
export function oldestCounted(field: LimitField, now: number): number {
  const bucket = BUCKET_MS[field];
  return now - (now % bucket) - WINDOW_MS[field];
}

/** What the window holds at `now`, and when its oldest counted amount stops counting. */
export function windowCount(
  field: LimitField,
  buckets: Buckets,
  now: number,
): { count: number; freesAt: number } {
  const from = oldestCounted(field, now);
  let count = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (const [start, amount] of buckets) {
    if (start >= from && amount > 0) {
      count += amount;
      oldest = Math.min(oldest, start);
    }
  }
  const freesAt = Number.isFinite(oldest) ? oldest + WINDOW_MS[field] + BUCKET_MS[field] : now;
  return { count, freesAt };
}

/** Whether a call may go: a request window must have room for one more; a token window must not be full. */
export function isOver(window: LimitWindow, count: number): boolean {
  return isTokenField(window.field) ? count >= window.limit : count + 1 > window.limit;
}

/**
 * When a window's counted amount has all stopped counting. A store reports no time (`now`) when
 * nothing was counted before this call; the call it has just counted is in the current bucket,
 * which stops counting a whole window later, never at once.
 */
function resetAt(seen: { window: LimitWindow; count: number; freesAt: number }, now: number): number {
  if (seen.count === 0 || seen.freesAt > now) {
    return seen.freesAt;
  }
  const { field } = seen.window;
  return now - (now % BUCKET_MS[field]) + WINDOW_MS[field] + BUCKET_MS[field];
}

/**
 * What clients are told to back off by (the HTTP mapper writes it as `x-ratelimit-*`): for
 * requests and for tokens, the window with the least room left (its limit, what remains, when its
 * oldest part frees).
 */
export function rateLimitWindows(
  windows: ReadonlyArray<{ window: LimitWindow; count: number; freesAt: number }>,
  now: number,
): RateLimitWindows {
  const shown: RateLimitWindows = {};
  for (const [kind, tokens] of [
    ['requests', false],
    ['tokens', true],
  ] as const) {
    const tightest = windows
      .filter(({ window }) => isTokenField(window.field) === tokens)
      .sort((a, b) => a.window.limit - a.count - (b.window.limit - b.count))[0];
    if (tightest) {
      shown[kind] = {
        limit: tightest.window.limit,
        remaining: Math.max(0, tightest.window.limit - tightest.count),
        resetMs: resetAt(tightest, now) - now,
      };
    }
  }
  return shown;
}
