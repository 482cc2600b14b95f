import { callerOf } from '../../../auth/authenticate.js';
import { parseInput, type Route } from '../../route.js';
import { poolWriter, toKeyFields } from '../fields.js';
import { keyRecord } from '../render.js';
import { KEY_ID_PARAM, keyIdParam, keyUpdatedResponse, updateKeyBody } from '../schemas.js';

const handle: Route['handle'] = async (deps, req, res) => {
  const id = keyIdParam(String(req.params.selector));
  const body = parseInput(updateKeyBody, req.body);
  const updated = await deps.keypool.updateKey({
    ...poolWriter(callerOf(res), req),
    id,
    fields: toKeyFields(body),
  });
  if (!updated.key) {
    throw new Error('keypool answered without a key');
  }
  res.json({ success: true, Action: 'update', Key: keyRecord(updated.key) });
};

const doc: Route['doc'] = {
  summary: 'Change Name, Level, Provider, SecretKey, Status or Config of a key',
  tag: 'keys',
  params: KEY_ID_PARAM,
  body: updateKeyBody,
  response: keyUpdatedResponse,
  errors: [404],
};

/** PUT /x-keys/{id}: change Name, Level, Provider, SecretKey, Status or Config. */
export const putKey: Route = { method: 'put', path: '/x-keys/:selector', access: 'owner', doc, handle };

/** POST /x-keys/{id}: the same as PUT. */
export const postKey: Route = { method: 'post', path: '/x-keys/:selector', access: 'owner', doc, handle };
