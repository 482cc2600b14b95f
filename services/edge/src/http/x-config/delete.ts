import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import { parseInput, type Route } from '../route.js';
import { configAnswer } from './render.js';
import { configResponse, deleteConfigBody } from './schemas.js';

/** DELETE /x-config `{ keys }`: those keys back to their defaults. */
export const deleteConfig: Route = {
  method: 'delete',
  path: '/x-config',
  access: 'owner',
  doc: {
    summary: 'Reset configuration keys to their defaults',
    tag: 'config',
    body: deleteConfigBody,
    response: configResponse,
  },
  async handle(deps, req, res) {
    const body = parseInput(deleteConfigBody, req.body);
    const caller = callerOf(res);
    const ownerId = ownerIdOf(caller);
    const answer = await deps.configs.deleteOwnerConfig({
      ownerId,
      keys: body.keys,
      operatorId: caller.id,
      ipAddress: req.ip ?? '',
    });
    res.json(configAnswer(ownerId, answer));
  },
};
