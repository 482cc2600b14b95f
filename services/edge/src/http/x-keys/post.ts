import { callerOf } from '../../auth/authenticate.js';
import { isRootPool, ownerIdOf } from '../owner.js';
import { parseBody, type Route } from '../route.js';
import { keyRecord } from './render.js';
import { createKeyBody } from './schemas.js';

/** POST /x-keys: add a provider key to the owner's pool. */
export const postKeys: Route = {
  method: 'post',
  path: '/x-keys',
  access: 'owner',
  async handle(deps, req, res) {
    const body = parseBody(createKeyBody, req.body);
    const caller = callerOf(res);
    const config = body.Config ?? body.config;
    const created = await deps.keypool.createKey({
      ownerId: ownerIdOf(caller),
      ownerIsRoot: isRootPool(caller),
      operatorId: caller.id,
      ipAddress: req.ip ?? '',
      fields: {
        name: body.Name,
        level: body.Level,
        provider: body.Provider,
        secretKey: body.SecretKey,
        status: body.Status,
        configJson: config === undefined ? undefined : JSON.stringify(config),
      },
    });
    if (!created.key) {
      throw new Error('keypool answered without a key');
    }
    res.json({ success: true, Action: 'add', Key: keyRecord(created.key), AutoConfig: { LevelMapper: created.autoLevelMapper } });
  },
};
