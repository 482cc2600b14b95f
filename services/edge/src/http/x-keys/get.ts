import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import { parseInput, type Route } from '../route.js';
import { keyListResponse, listKeysQuery } from './schemas.js';
import { sendKeyPage } from './render.js';

/** GET /x-keys: the owner's keys, filtered by id, level or provider (URL or host), paged. */
export const getKeys: Route = {
  method: 'get',
  path: '/x-keys',
  access: 'owner',
  doc: {
    summary: "The owner's provider keys",
    tag: 'keys',
    query: listKeysQuery,
    response: keyListResponse,
  },
  async handle(deps, req, res) {
    const query = parseInput(listKeysQuery, req.query);
    const page = await deps.keypool.listKeys({
      ownerId: ownerIdOf(callerOf(res)),
      id: query.id === undefined ? undefined : BigInt(query.id),
      level: query.level,
      provider: query.provider ?? '',
      page: query.page ?? 1,
      size: query.size ?? 0,
    });
    sendKeyPage(res, page);
  },
};
