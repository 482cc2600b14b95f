import { AppError, ErrorCode, ownerIdOf } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import { parseInput, type Route } from '../../route.js';
import { sendKeyPage } from '../render.js';
import { keyListResponse, listKeysQuery, parseSelector } from '../schemas.js';

/** GET /x-keys/{id}, /x-keys/L<n>, /x-keys/<provider_host>: the list filtered by the path. */
export const getKeysBySelector: Route = {
  method: 'get',
  path: '/x-keys/:selector',
  access: 'owner',
  doc: {
    summary: 'The keys a key id, L<level> or provider host selects',
    tag: 'keys',
    params: { selector: 'A key id, L<level> or a provider host' },
    query: listKeysQuery.pick({ page: true, size: true }),
    response: keyListResponse,
    errors: [404],
  },
  async handle(deps, req, res) {
    const selector = parseSelector(String(req.params.selector));
    const query = parseInput(listKeysQuery.pick({ page: true, size: true }), req.query);
    const page = await deps.keypool.listKeys({
      ownerId: ownerIdOf(callerOf(res)),
      id: 'id' in selector ? selector.id : undefined,
      level: 'level' in selector ? selector.level : undefined,
      provider: 'provider' in selector ? selector.provider : '',
      page: query.page ?? 1,
      size: query.size ?? 0,
    });
    if ('id' in selector && page.keys.length === 0) {
      throw new AppError(ErrorCode.NotFound, `key ${selector.id} does not exist`);
    }
    sendKeyPage(res, page);
  },
};
