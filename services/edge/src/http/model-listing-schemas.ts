import { z } from 'zod';

/** GET /dashboard/models. */
export const dashboardModelsResponse = z.object({
  models: z.array(
    z.object({
      id: z.string(),
      provider: z.string(),
      context_window: z.number().int(),
      max_output_tokens: z.number().int(),
    }),
  ),
});

/** GET /v1/models and /models: OpenAI's list form. */
export const openAiModelsResponse = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      id: z.string(),
      object: z.literal('model'),
      created: z.number().int(),
      owned_by: z.string(),
    }),
  ),
});
