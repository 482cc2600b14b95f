import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import { isRootPool } from '../owner.js';
import { parseInput, type Route } from '../route.js';
import { configAnswer } from './render.js';
import { configResponse, configValues, updateConfigBody } from './schemas.js';

const handle: Route['handle'] = async (deps, req, res) => {
  const values = configValues(parseInput(updateConfigBody, req.body));
  const caller = callerOf(res);
  const ownerId = ownerIdOf(caller);
  const answer = await deps.configs.updateOwnerConfig({
    ownerId,
    values,
    mergeLimits: false,
    operatorId: caller.id,
    ownerIsRoot: isRootPool(caller),
    ipAddress: req.ip ?? '',
  });
  res.json(configAnswer(ownerId, answer));
};

const doc: Route['doc'] = {
  summary: 'Set configuration keys (all validated first; any error stores nothing)',
  tag: 'config',
  body: updateConfigBody,
  response: configResponse,
};

/** PUT /x-config: set the listed keys (all validated first; any error stores nothing). */
export const putConfig: Route = { method: 'put', path: '/x-config', access: 'owner', doc, handle };
/** POST /x-config: the same as PUT. */
export const postConfig: Route = { method: 'post', path: '/x-config', access: 'owner', doc, handle };
