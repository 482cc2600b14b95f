import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import { z } from 'zod';
import type { Route } from '../../route.js';

/** GET /x-ekey/{plain}: `{ EncryptedKey }`, sealed for the caller's owner only. */
export const getEncryptedKey: Route = {
  method: 'get',
  path: '/x-ekey/:plain',
  access: 'owner',
  doc: {
    summary: "Encrypt a secret for the caller's owner",
    tag: 'keys',
    params: { plain: 'The secret to encrypt' },
    response: z.object({ EncryptedKey: z.string() }),
  },
  async handle(deps, req, res) {
    const { ciphertext } = await deps.keypool.encryptSecret({
      ownerId: ownerIdOf(callerOf(res)),
      plaintext: String(req.params.plain),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ EncryptedKey: ciphertext });
  },
};
