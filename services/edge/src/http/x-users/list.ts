import type { accounts } from '@gw/proto';
import type { Request, Response } from 'express';
import { callerOf } from '../../auth/authenticate.js';
import type { EdgeDeps } from '../../deps.js';
import { managementView } from '../account-views.js';
import { parseInput, type Route } from '../route.js';
import { IDENTIFIER_PARAM, listQuery, userListResponse } from './schemas.js';

/**
 * GET /x-users[/{identifier}] (direct children) and /x-dna[/{identifier}] (all descendants):
 * `{ success, users, total, page, size }` plus the X-Total-Count, X-Page, X-Per-Page and
 * X-Total-Pages headers. Paged as every list is (`paging.ts`).
 */
export function listRoute(path: string, reach: accounts.Reach, summary: string): Route {
  const one = path.includes(':identifier');
  return {
    method: 'get',
    path,
    access: 'user',
    doc: {
      summary,
      tag: 'accounts',
      query: listQuery,
      ...(one && { params: IDENTIFIER_PARAM, errors: [404] }),
      response: userListResponse,
    },
    async handle(deps: EdgeDeps, req: Request, res: Response) {
      const query = parseInput(listQuery, req.query);
      const caller = callerOf(res);
      const identifier = typeof req.params.identifier === 'string' ? req.params.identifier : undefined;
      const listed = await deps.accounts.listAccounts({
        callerId: caller.id,
        reach,
        filter: {
          id: query.id === undefined ? undefined : BigInt(query.id),
          name: query.name,
          email: query.email,
          level: query.level === undefined ? undefined : Number(query.level),
          dna: query.dna,
          identifier,
        },
        page: query.page ?? 1,
        size: query.size ?? 100,
        order: query.order ?? '',
      });
      const total = Number(listed.total);
      res.setHeader('X-Total-Count', String(total));
      res.setHeader('X-Page', String(listed.page));
      res.setHeader('X-Per-Page', String(listed.size));
      res.setHeader('X-Total-Pages', String(Math.ceil(total / listed.size)));
      res.json({
        success: true,
        users: listed.accounts.map(managementView),
        total,
        page: listed.page,
        size: listed.size,
      });
    },
  };
}
