import { z } from 'zod';
import { callerOf } from '../../../auth/authenticate.js';
import { parseInput, type Route } from '../../route.js';
import { newsResponse } from '../schemas.js';
import { newsItemView } from '../../x-news/render.js';

/** The largest page of each list, and the size of one when none is asked for. */
const MAX_NEWS_PAGE = 100;

const digits = (max: number) => z.string().regex(new RegExp(`^\\d{1,${max}}$`), 'must be a positive integer');

const newsQuery = z.object({
  page: digits(7)
    .refine((value) => Number(value) >= 1, 'must be at least 1')
    .optional(),
  size: digits(9)
    .refine((value) => Number(value) >= 1, 'must be at least 1')
    .optional(),
});

/**
 * GET /dashboard/news (old path /dashboard/x-user-news): the unexpired news that concern the
 * caller: system news, its own user news, and DNA news for its path and its ancestors' paths.
 * Each list is paged alike (`page`, `size` up to 100, larger sizes capped), newest first, with
 * its total.
 */
export function dashboardNews(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    doc: {
      summary: 'The news that concern the caller',
      tag: 'news',
      query: newsQuery,
      response: newsResponse,
    },
    async handle(deps, req, res) {
      const query = parseInput(newsQuery, req.query);
      const caller = callerOf(res);
      const page = query.page === undefined ? 1 : Number(query.page);
      const size = Math.min(query.size === undefined ? MAX_NEWS_PAGE : Number(query.size), MAX_NEWS_PAGE);
      const found = await deps.news.listNews({
        accountId: caller.id,
        dna: caller.dna,
        pageSize: size,
        pageOffset: (page - 1) * size,
      });
      res.json({
        success: true,
        system_news: found.systemNews.map(newsItemView),
        user_news: found.userNews.map(newsItemView),
        dna_news: found.dnaNews.map(newsItemView),
        page,
        size,
        system_total: Number(found.systemTotal),
        user_total: Number(found.userTotal),
        dna_total: Number(found.dnaTotal),
      });
    },
  };
}
