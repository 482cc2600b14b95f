import { AppError, CompiledOnce, ErrorCode, type CallerIdentity, type PatternTable } from '@gw/kit';
import { modelLimitTableOf, rateLimitWindows, windowsFor, type LimitWindow, type Limits } from './limits.js';
import type { OwnerPool } from './pool.js';
import type { Admission } from './ports/rate-limiter.js';

const accountModelLimits = new CompiledOnce(modelLimitTableOf);

/** Models remembered per caller identity; an identity that calls more starts its memo over. */
const MODELS_PER_CALLER = 64;

/**
 * Each caller identity's windows by model, for the pool and defaults they were worked out with. An
 * identity lasts as long as its account's cache entry and a pool or defaults change comes as a new
 * object, so a memo is never stale; most calls find theirs instead of matching every table again.
 */
const windowsOfCaller = new WeakMap<
  CallerIdentity,
  { pool: OwnerPool; defaults: PatternTable<Limits>; byModel: Map<string, LimitWindow[]> }
>();

/**
 * The rate-limit windows of one call by this caller to this model: its ancestors' ModelLimits
 * bind it with its own.
 */
export function callWindows(
  caller: CallerIdentity,
  pool: OwnerPool,
  defaults: PatternTable<Limits>,
  model: string,
): readonly LimitWindow[] {
  let memo = windowsOfCaller.get(caller);
  if (memo?.pool !== pool || memo.defaults !== defaults) {
    memo = { pool, defaults, byModel: new Map() };
    windowsOfCaller.set(caller, memo);
  }
  let windows = memo.byModel.get(model);
  if (windows === undefined) {
    if (memo.byModel.size >= MODELS_PER_CALLER) {
      memo.byModel.clear();
    }
    windows = windowsOfCallTo(caller, pool, defaults, model);
    memo.byModel.set(model, windows);
  }
  return windows;
}

function windowsOfCallTo(
  caller: CallerIdentity,
  pool: OwnerPool,
  defaults: PatternTable<Limits>,
  model: string,
): LimitWindow[] {
  return windowsFor(
    {
      accountId: caller.accountId,
      account: caller.limits,
      modelLimits: [accountModelLimits.get(caller.modelLimits), pool.routing.modelLimits, defaults],
      inherited: caller.inherited.modelLimits.map((json) => accountModelLimits.get(json)),
    },
    model,
  );
}

const NAMES: Record<string, string> = {
  rpm: 'requests per minute',
  rph: 'requests per hour',
  rpd: 'requests per day',
  tpm: 'tokens per minute',
  tph: 'tokens per hour',
  tpd: 'tokens per day',
};

/** A refused admission as the 429 clients back off from: when to try again, and the windows. */
export function assertAdmitted(admission: Admission, now: number): void {
  if (admission.ok) {
    return;
  }
  // Refused, a request window counts without this call: over means full, as for tokens.
  const over = admission.windows.find(({ window, count }) => count >= window.limit);
  const what = over
    ? `${NAMES[over.window.field]} (${over.window.field.toUpperCase()}): limit ${over.window.limit}`
    : 'a rate limit';
  const retryAfterSeconds = Math.max(1, Math.ceil((admission.retryAt - now) / 1000));
  throw new AppError(
    ErrorCode.RateLimited,
    `Rate limit reached for ${what}. Try again in ${retryAfterSeconds}s.`,
    {
      retryAfterSeconds,
      windows: rateLimitWindows(admission.windows, now),
    },
  );
}
