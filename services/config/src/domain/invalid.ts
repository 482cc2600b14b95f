import { AppError, ErrorCode, excerpt } from '@gw/kit';

/**
 * A 400 naming the offending field (`MODEL_LIMITS.gpt-4o.rpm`, `PRICING.ChatPricing.x.Rates`).
 * Field names and reasons can carry what the owner sent (a pattern, a model): each is quoted as a
 * short excerpt only, so a huge value never comes back whole.
 */
export function invalid(field: string, reason: string): never {
  const named = excerpt(field, 100);
  throw new AppError(ErrorCode.InvalidRequest, `${named}: ${excerpt(reason, 300)}`, { field: named });
}
