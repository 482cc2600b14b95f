import { AppError, ErrorCode } from '@gw/kit';
import type { KeypoolDeps } from './ports/deps.js';
import { aad } from './secrets.js';

/** /x-ekey: seals a value for this owner only (the owner id is the associated data). */
export async function encryptSecret(
  deps: KeypoolDeps,
  input: { ownerId: bigint; plaintext: string },
): Promise<string> {
  if (input.plaintext.length === 0 || input.plaintext.length > 8192) {
    throw new AppError(ErrorCode.InvalidRequest, 'the value to encrypt must be 1 to 8192 characters');
  }
  return Promise.resolve(deps.box.seal(input.plaintext, aad.ekey(input.ownerId)));
}
