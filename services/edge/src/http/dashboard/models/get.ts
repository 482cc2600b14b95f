import { callerOf } from '../../../auth/authenticate.js';
import { listedModels } from '../../model-listing.js';
import type { Route } from '../../route.js';
import { dashboardModelsResponse } from '../../model-listing-schemas.js';

/** GET /dashboard/models: the models the caller may use, with their provider and token limits. */
export const dashboardModels: Route = {
  method: 'get',
  path: '/dashboard/models',
  access: 'user',
  doc: {
    summary: 'The default-table models the caller may use, with provider and token limits',
    tag: 'dashboard',
    response: dashboardModelsResponse,
  },
  handle(_deps, _req, res) {
    res.json({
      models: listedModels(callerOf(res)).map((model) => ({
        id: model.id,
        provider: model.provider,
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
      })),
    });
    return Promise.resolve();
  },
};
