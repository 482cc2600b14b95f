import { callerOf } from '../../auth/authenticate.js';
import type { Route } from '../route.js';
import { newsDeletedResponse } from './schemas.js';
import { SYSTEM_TARGET } from './target.js';

/** DELETE /x-news: removes every system news item (root only). */
export const deleteSystemNews: Route = {
  method: 'delete',
  path: '/x-news',
  access: 'root',
  doc: { summary: 'Delete every system news item', tag: 'news', response: newsDeletedResponse },
  async handle(deps, req, res) {
    // Root is above every author: no deleter means every item.
    const { deleted } = await deps.news.deleteNews({
      target: SYSTEM_TARGET,
      callerDna: '',
      callerId: 0n,
      operatorId: callerOf(res).id,
      ipAddress: req.ip ?? '',
    });
    res.json({ success: true, scope: 'system', deleted: Number(deleted) });
  },
};
