import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import type { Route } from '../route.js';
import { configAnswer } from './render.js';
import { configResponse } from './schemas.js';

/** GET /x-config: the owner's configuration. */
export const getConfig: Route = {
  method: 'get',
  path: '/x-config',
  access: 'owner',
  doc: { summary: "The owner's configuration", tag: 'config', response: configResponse },
  async handle(deps, _req, res) {
    const ownerId = ownerIdOf(callerOf(res));
    res.json(configAnswer(ownerId, await deps.configs.getOwnerConfig({ ownerId })));
  },
};
