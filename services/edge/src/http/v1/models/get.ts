import { callerOf } from '../../../auth/authenticate.js';
import { listedModels } from '../../model-listing.js';
import type { Route } from '../../route.js';
import { openAiModelsResponse } from '../../model-listing-schemas.js';

/**
 * GET /v1/models (alias /models): the same listing as /dashboard/models in the OpenAI list form,
 * answered here and never forwarded. `created` is the start of the month the model's prices were
 * last read (the table knows no release dates); `owned_by` is the provider.
 */
export function openAiModels(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    doc: {
      summary: 'The models the caller may use, in the OpenAI list form (answered by the edge)',
      tag: 'dashboard',
      response: openAiModelsResponse,
    },
    handle(_deps, _req, res) {
      res.json({
        object: 'list',
        data: listedModels(callerOf(res)).map((model) => ({
          id: model.id,
          object: 'model',
          created: Date.parse(`${model.read}-01T00:00:00Z`) / 1000,
          owned_by: model.provider,
        })),
      });
      return Promise.resolve();
    },
  };
}
