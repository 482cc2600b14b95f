import { AppError, ErrorCode } from '@gw/kit';

/** A 400 naming the offending field (`MODEL_LIMITS.gpt-4o.rpm`, `PRICING.ChatPricing.x.Rates`). */
export function invalid(field: string, reason: string): never {
  throw new AppError(ErrorCode.InvalidRequest, `${field}: ${reason}`, { field });
}
