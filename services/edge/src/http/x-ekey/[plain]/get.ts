import { callerOf } from '../../../auth/authenticate.js';
import { ownerIdOf } from '../../owner.js';
import type { Route } from '../../route.js';

/** GET /x-ekey/{plain}: `{ EncryptedKey }`, sealed for the caller's owner only. */
export const getEncryptedKey: Route = {
  method: 'get',
  path: '/x-ekey/:plain',
  access: 'owner',
  async handle(deps, req, res) {
    const { ciphertext } = await deps.keypool.encryptSecret({
      ownerId: ownerIdOf(callerOf(res)),
      plaintext: String(req.params.plain),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ EncryptedKey: ciphertext });
  },
};
