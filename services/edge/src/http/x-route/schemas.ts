import { z } from 'zod';

/** GET /x-route: the routing decision the proxy would make (the proxy's route inspection). */
export const routeResponse = z.object({
  Model: z.string(),
  MappedModel: z.string(),
  Level: z.number().int().nullable(),
  Levels: z.array(z.number().int()),
  SwitchedLevels: z.array(z.number().int()),
  FailoverModels: z.array(z.string()),
  Routable: z.boolean(),
  Reason: z.string().optional(),
  Message: z.string().optional(),
  Steps: z.array(z.object({ Model: z.string(), Level: z.number().int(), Keys: z.array(z.number().int()) })),
  Keys: z.array(
    z.object({
      ID: z.number().int(),
      Name: z.string(),
      Level: z.number().int(),
      Provider: z.string(),
      ProviderType: z.string(),
      State: z.enum(['active', 'sleeping', 'disabled']),
      WakeAt: z.string().optional(),
      LastFailure: z.string().optional(),
    }),
  ),
});
