import { callerOf } from '../../../auth/authenticate.js';
import type { Route } from '../../route.js';
import { newsResponse } from '../schemas.js';
import { newsItemView } from '../../x-news/render.js';

/**
 * GET /dashboard/news (old path /dashboard/x-user-news): the unexpired news that concern the
 * caller: system news, its own user news, and DNA news for its path and its ancestors' paths.
 */
export function dashboardNews(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    doc: { summary: 'The news that concern the caller', tag: 'news', response: newsResponse },
    async handle(deps, _req, res) {
      const caller = callerOf(res);
      const found = await deps.news.listNews({ accountId: caller.id, dna: caller.dna });
      res.json({
        success: true,
        system_news: found.systemNews.map(newsItemView),
        user_news: found.userNews.map(newsItemView),
        dna_news: found.dnaNews.map(newsItemView),
      });
    },
  };
}
