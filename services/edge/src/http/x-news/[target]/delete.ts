import { callerOf } from '../../../auth/authenticate.js';
import type { Route } from '../../route.js';
import { newsDeletedResponse } from '../schemas.js';
import { resolveNewsTarget, scopeName } from '../target.js';

/**
 * DELETE /x-news/{target}: removes the items of that target (same permission as posting) that the
 * caller or an account below it posted; an ancestor's items stay (docs/decisions.md §20).
 */
export const deleteTargetNews: Route = {
  method: 'delete',
  path: '/x-news/:target',
  access: 'user',
  doc: {
    summary: 'Delete the news you (or accounts below you) posted to an account or a DNA group',
    tag: 'news',
    params: { target: 'An account id or username (user news) or a DNA path such as .1.5. (DNA news)' },
    response: newsDeletedResponse,
    errors: [404],
  },
  async handle(deps, req, res) {
    const caller = callerOf(res);
    const target = await resolveNewsTarget(deps, caller, String(req.params.target));
    const { deleted } = await deps.news.deleteNews({
      target,
      callerDna: caller.dna,
      callerId: caller.id,
      operatorId: caller.id,
      ipAddress: req.ip ?? '',
    });
    res.json({ success: true, scope: scopeName(target), deleted: Number(deleted) });
  },
};
