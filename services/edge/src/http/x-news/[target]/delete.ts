import { callerOf } from '../../../auth/authenticate.js';
import type { Route } from '../../route.js';
import { resolveNewsTarget, scopeName } from '../target.js';

/** DELETE /x-news/{target}: removes every item of that target (same permission as posting). */
export const deleteTargetNews: Route = {
  method: 'delete',
  path: '/x-news/:target',
  access: 'user',
  async handle(deps, req, res) {
    const target = await resolveNewsTarget(deps, callerOf(res), String(req.params.target));
    const { deleted } = await deps.news.deleteNews({ target });
    res.json({ success: true, scope: scopeName(target), deleted: Number(deleted) });
  },
};
