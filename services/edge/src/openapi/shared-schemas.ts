import { ErrorCode } from '@gw/kit';
import { z } from 'zod';

/** The spec's error body (the kit's `errorBody`), shared by every management route. */
export const errorResponse = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum([
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found_error',
        'rate_limit_error',
        'insufficient_quota',
        'api_error',
      ]),
      code: z.enum(Object.values(ErrorCode)),
    }),
  })
  .meta({ id: 'Error', description: 'The error shape of every management answer.' });

/** A USD amount as a JSON number (nano-USD inside, at most 9 decimals). */
export const usd = z.number().meta({ description: 'USD (at most 9 decimals)' });

/** An ISO 8601 time as the services write it (empty when unset). */
export const timestamp = z.string();

/** `{ model: { rpm?, rph?, ... } }` */
export const modelLimitsObject = z
  .record(
    z.string(),
    z.object({
      rpm: z.number().int().optional(),
      rph: z.number().int().optional(),
      rpd: z.number().int().optional(),
      tpm: z.number().int().optional(),
      tph: z.number().int().optional(),
      tpd: z.number().int().optional(),
    }),
  )
  .meta({ id: 'ModelLimits' });
