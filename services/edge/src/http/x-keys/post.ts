import { callerOf } from '../../auth/authenticate.js';
import { parseInput, type Route } from '../route.js';
import { poolWriter, toKeyFields } from './fields.js';
import { keyRecord } from './render.js';
import { createKeyBody, keyCreatedResponse } from './schemas.js';

/** POST /x-keys: add a provider key to the owner's pool. */
export const postKeys: Route = {
  method: 'post',
  path: '/x-keys',
  access: 'owner',
  doc: {
    summary: "Add a provider key to the owner's pool",
    tag: 'keys',
    body: createKeyBody,
    response: keyCreatedResponse,
  },
  async handle(deps, req, res) {
    const body = parseInput(createKeyBody, req.body);
    const created = await deps.keypool.createKey({
      ...poolWriter(callerOf(res), req),
      fields: toKeyFields(body),
    });
    if (!created.key) {
      throw new Error('keypool answered without a key');
    }
    res.json({
      success: true,
      Action: 'add',
      Key: keyRecord(created.key),
      AutoConfig: { LevelMapper: created.autoLevelMapper },
    });
  },
};
