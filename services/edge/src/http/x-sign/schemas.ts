import { z } from 'zod';

/** POST /x-sign. The address itself is checked (and normalised) by accounts. */
export const signupBody = z.strictObject({ email: z.string().max(320) });

/** POST /x-sign/verify. */
export const verifyBody = z.strictObject({ email: z.string().max(320), code: z.string().max(64) });

/** GET /x-sign/activate. Repeated parameters (arrays) are refused. */
export const activateQuery = z.object({ token: z.string().max(256) });

/** Every signup answer but the activation page: `{ success, message }` (errors too). */
export const signupAnswer = z.object({ success: z.boolean(), message: z.string() });

/** POST /x-sign/verify. */
export const verifiedResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  user: z.object({ id: z.number().int(), name: z.string(), email: z.string() }),
});
