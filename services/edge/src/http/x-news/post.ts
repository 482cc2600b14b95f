import type { news } from '@gw/proto';
import type { Request, Response } from 'express';
import { callerOf } from '../../auth/authenticate.js';
import type { EdgeDeps } from '../../deps.js';
import { parseInput, type Route } from '../route.js';
import { newsItemView } from './render.js';
import { newsBody, newsCreatedResponse } from './schemas.js';
import { scopeName, SYSTEM_TARGET } from './target.js';

/** Stores one item for a resolved target and answers it. */
export async function postNews(
  deps: EdgeDeps,
  req: Request,
  res: Response,
  target: news.NewsTarget,
): Promise<void> {
  const body = parseInput(newsBody, req.body);
  const author = callerOf(res);
  const { item } = await deps.news.createNews({
    target,
    title: body.title,
    content: body.content,
    days: body.days,
    authorId: author.id,
    authorDna: author.dna,
    ipAddress: req.ip ?? '',
  });
  if (!item) {
    throw new Error('news answered without an item');
  }
  res.json({ success: true, scope: scopeName(target), news: newsItemView(item) });
}

/** POST /x-news: system-wide news (root only), 7 days unless `days` says otherwise. */
export const postSystemNews: Route = {
  method: 'post',
  path: '/x-news',
  access: 'root',
  doc: { summary: 'Post system news', tag: 'news', body: newsBody, response: newsCreatedResponse },
  handle: (deps, req, res) => postNews(deps, req, res, SYSTEM_TARGET),
};
