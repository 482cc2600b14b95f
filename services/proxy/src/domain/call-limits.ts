import { AppError, CompiledOnce, ErrorCode, type CallerIdentity, type PatternTable } from '@gw/kit';
import { modelLimitTableOf, rateLimitWindows, windowsFor, type LimitWindow, type Limits } from './limits.js';
import type { OwnerPool } from './pool.js';
import type { Admission } from './ports/rate-limiter.js';

const accountModelLimits = new CompiledOnce(modelLimitTableOf);

/**
 * The rate-limit windows of one call by this caller to this model: its ancestors' ModelLimits
 * bind it with its own.
 */
export function callWindows(
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
