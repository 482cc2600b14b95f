import { callerOf } from '../../../auth/authenticate.js';
import type { Route } from '../../route.js';
import { newsBody, newsCreatedResponse } from '../schemas.js';
import { postNews } from '../post.js';
import { resolveNewsTarget } from '../target.js';

/**
 * POST /x-news/{target}: news for one account (id or username) or a DNA group (a path), by an
 * ancestor of the target; 32 days unless `days` says otherwise.
 */
export const postTargetNews: Route = {
  method: 'post',
  path: '/x-news/:target',
  access: 'user',
  doc: {
    summary: 'Post news for an account or a DNA group below the caller',
    tag: 'news',
    params: { target: 'An account id or username (user news) or a DNA path such as .1.5. (DNA news)' },
    body: newsBody,
    response: newsCreatedResponse,
    errors: [404],
  },
  async handle(deps, req, res) {
    const target = await resolveNewsTarget(deps, callerOf(res), String(req.params.target));
    await postNews(deps, req, res, target);
  },
};
