import { AppError, ErrorCode } from '@gw/kit';
import { z } from 'zod';

/**
 * PUT|POST /x-config: a map of CONFIG_KEY to string value (MODEL_LIMITS may also be an object).
 * Which keys are allowed and what each value means is the config service's rule.
 */
export const updateConfigBody = z.record(
  z.string().max(64),
  z.union([z.string(), z.record(z.string(), z.unknown())]),
);

/** Values as the config service takes them: strings, MODEL_LIMITS objects as JSON. */
export function configValues(body: z.infer<typeof updateConfigBody>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string') {
      values[key] = value;
    } else if (key === 'MODEL_LIMITS') {
      values[key] = JSON.stringify(value);
    } else {
      throw new AppError(ErrorCode.InvalidRequest, `${key}: must be a string`, { field: key });
    }
  }
  return values;
}

/** DELETE /x-config. */
export const deleteConfigBody = z.strictObject({ keys: z.array(z.string().max(64)).min(1).max(64) });
