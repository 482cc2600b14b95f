import { z } from 'zod';

export const signInBody = z.strictObject({
  key: z.string().min(1).max(256).meta({ description: 'The API key, exchanged once; never stored.' }),
});

export const sessionResponse = z.object({
  object: z.literal('console_session'),
  id: z.number().int().meta({ description: 'The signed-in account.' }),
  csrf_token: z
    .string()
    .meta({ description: 'Send it as X-CSRF-Token with every write this session makes.' }),
  idle_seconds: z.number().int().meta({ description: 'The session ends after this long unused.' }),
});

export const signOutResponse = z.object({ success: z.literal(true), message: z.string() });
