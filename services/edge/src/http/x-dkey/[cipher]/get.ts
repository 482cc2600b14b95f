import { ownerIdOf } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import { z } from 'zod';
import type { Route } from '../../route.js';

/** GET /x-dkey/{cipher}: `{ DecryptedKey }`; another owner's or a tampered cipher is 400. */
export const getDecryptedKey: Route = {
  method: 'get',
  path: '/x-dkey/:cipher',
  access: 'owner',
  doc: {
    summary: "Decrypt a secret sealed for the caller's owner",
    tag: 'keys',
    params: { cipher: 'A ciphertext from /x-ekey' },
    response: z.object({ DecryptedKey: z.string() }),
  },
  async handle(deps, req, res) {
    const { plaintext } = await deps.keypool.decryptSecret({
      ownerId: ownerIdOf(callerOf(res)),
      ciphertext: String(req.params.cipher),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ DecryptedKey: plaintext });
  },
};
