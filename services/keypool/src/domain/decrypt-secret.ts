import { AppError, ErrorCode } from '@gw/kit';
import type { KeypoolDeps } from './ports/deps.js';
import { aad } from './secrets.js';

/** /x-dkey: opens a cipher of this owner; tampered ones and other owners' answer 400. */
export async function decryptSecret(
  deps: KeypoolDeps,
  input: { ownerId: bigint; ciphertext: string },
): Promise<string> {
  const plain =
    input.ciphertext.length > 16_384 ? undefined : deps.box.open(input.ciphertext, aad.ekey(input.ownerId));
  if (plain === undefined) {
    throw new AppError(ErrorCode.InvalidRequest, 'the cipher is not valid for this owner');
  }
  return Promise.resolve(plain);
}
