import { z } from 'zod';

/** POST /x-sign. The address itself is checked (and normalised) by accounts. */
export const signupBody = z.strictObject({ email: z.string().max(320) });

/** POST /x-sign/verify. */
export const verifyBody = z.strictObject({ email: z.string().max(320), code: z.string().max(64) });

/** GET /x-sign/activate. Repeated parameters (arrays) are refused. */
export const activateQuery = z.object({ token: z.string().max(256) });
