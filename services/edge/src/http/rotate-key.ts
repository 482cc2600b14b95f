import { AppError, ErrorCode } from '@gw/kit';
import { z } from 'zod';
import type { Access } from '../auth/authenticate.js';
import { callerOf } from '../auth/authenticate.js';
import { parseInput, type Route } from './route.js';

const rotateBody = z.strictObject({
  confirm: z.string().max(64),
  key: z.string().max(256).optional(),
  /** /x-root only: the root account's name, "root" by default. */
  name: z.string().max(64).optional(),
});

const rotateResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  rotate: z.object({
    action: z.enum(['rotate_self', 'rotate_root']),
    id: z.number().int(),
    name: z.string(),
    key: z.string().meta({ description: 'The new key, shown once.' }),
    timestamp: z.string(),
  }),
});

/**
 * POST /x-self and POST /x-root: rotate the caller's own key. The old key stops working at once
 * here and, through gw.account.changed, on every other edge replica.
 */
export function rotateKeyRoute(path: string, access: Access, root: boolean): Route {
  return {
    method: 'post',
    path,
    access,
    doc: {
      summary: root ? 'Rotate the root key' : "Rotate the caller's own key",
      tag: 'accounts',
      body: rotateBody,
      response: rotateResponse,
    },
    async handle(deps, req, res) {
      const body = parseInput(rotateBody, req.body);
      const caller = callerOf(res);
      if (body.name !== undefined && (!root || body.name !== caller.name)) {
        throw new AppError(
          ErrorCode.InvalidRequest,
          root ? `name: root is called "${caller.name}"` : 'name: only /x-root takes a name',
          { field: 'name' },
        );
      }
      const rotated = await deps.accounts.rotateKey({
        callerId: caller.id,
        confirm: body.confirm,
        key: body.key,
        root,
        ipAddress: req.ip ?? '',
      });
      deps.cache.invalidateAccount(caller.id);
      res.json({
        success: true,
        message: 'key rotated; the old key no longer works',
        rotate: {
          action: root ? 'rotate_root' : 'rotate_self',
          id: Number(rotated.id),
          name: rotated.name,
          key: rotated.key,
          timestamp: rotated.rotatedAt,
        },
      });
    },
  };
}
