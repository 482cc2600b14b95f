import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import type { Route } from '../../route.js';
import { KEY_ID_PARAM, keyDeletedResponse, keyIdParam } from '../schemas.js';

/** DELETE /x-keys/{id}: remove a key from the owner's pool. */
export const deleteKey: Route = {
  method: 'delete',
  path: '/x-keys/:selector',
  access: 'owner',
  doc: {
    summary: "Remove a key from the owner's pool",
    tag: 'keys',
    params: KEY_ID_PARAM,
    response: keyDeletedResponse,
    errors: [404],
  },
  async handle(deps, req, res) {
    const id = keyIdParam(String(req.params.selector));
    const caller = callerOf(res);
    await deps.keypool.deleteKey({
      ownerId: ownerIdOf(caller),
      operatorId: caller.id,
      ipAddress: req.ip ?? '',
      id,
    });
    res.json({ success: true, Action: 'delete', ID: Number(id) });
  },
};
