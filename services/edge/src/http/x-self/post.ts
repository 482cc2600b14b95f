import { z } from 'zod';
import { callerOf } from '../../auth/authenticate.js';
import { parseBody, type Route } from '../route.js';

const rotateBody = z.strictObject({ confirm: z.string().max(64), key: z.string().max(256).optional() });

/** POST /x-self: rotate the caller's own key; the old one stops working at once everywhere. */
export const postSelf: Route = {
  method: 'post',
  path: '/x-self',
  access: 'user',
  async handle(deps, req, res) {
    const body = parseBody(rotateBody, req.body);
    const caller = callerOf(res);
    const rotated = await deps.accounts.rotateKey({
      callerId: caller.id,
      confirm: body.confirm,
      key: body.key,
      root: false,
      ipAddress: req.ip ?? '',
    });
    // This replica drops the old key now; the event does the same for every other replica.
    deps.cache.invalidateAccount(caller.id);
    res.json({
      success: true,
      message: 'key rotated; the old key no longer works',
      rotate: { action: 'rotate_self', id: Number(rotated.id), name: rotated.name, key: rotated.key, timestamp: rotated.rotatedAt },
    });
  },
};
