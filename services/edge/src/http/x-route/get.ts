import {
  AppError,
  CALLER_HEADER,
  callerIdentity,
  encodeCaller,
  ErrorCode,
  INTERNAL_TOKEN_HEADER,
  REQUEST_ID_HEADER,
} from '@gw/kit';
import { accounts } from '@gw/proto';
import { z } from 'zod';
import { callerOf } from '../../auth/authenticate.js';
import { parseInput, type Route } from '../route.js';
import { routeResponse } from './schemas.js';

const routeQuery = z.object({
  model: z.string().min(1).max(256),
  user: z.string().min(1).max(320).optional(),
});

/**
 * GET /x-route?model=<m>[&user=<identifier>] (owner): the routing decision the proxy would make for
 * the owner, or for an account below it, without calling upstream: mapped model, Level chain,
 * failover models, the keys in try order and every candidate key with its state.
 */
export const getRoute: Route = {
  method: 'get',
  path: '/x-route',
  access: 'owner',
  doc: {
    summary: 'The routing decision for a model, without calling upstream',
    tag: 'config',
    query: routeQuery,
    response: routeResponse,
    errors: [404],
  },
  async handle(deps, req, res) {
    const query = parseInput(routeQuery, req.query);
    const caller = callerOf(res);
    let subject = caller;
    if (query.user !== undefined) {
      const { account } = await deps.accounts.getAccount({
        callerId: caller.id,
        identifier: query.user,
        reach: accounts.Reach.REACH_SELF_OR_DESCENDANTS,
      });
      if (!account) {
        throw new Error('accounts answered without an account');
      }
      subject = account;
    }
    let response: Response;
    try {
      response = await fetch(
        `http://${deps.config.PROXY_ADDR}/internal/route?model=${encodeURIComponent(query.model)}`,
        {
          headers: {
            [INTERNAL_TOKEN_HEADER]: deps.config.GW_INTERNAL_TOKEN,
            [CALLER_HEADER]: encodeCaller(callerIdentity(subject, deps.config.USER_API_BALANCE)),
            [REQUEST_ID_HEADER]: String(res.locals.requestId ?? ''),
          },
          signal: AbortSignal.timeout(2_000),
        },
      );
    } catch (error) {
      throw new AppError(ErrorCode.Unavailable, 'the AI proxy did not answer', undefined, error);
    }
    res
      .status(response.status)
      .type('application/json')
      .send(await response.text());
  },
};
