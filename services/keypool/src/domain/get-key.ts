import { AppError, ErrorCode } from '@gw/kit';
import type { KeyView } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';
import { maskedView } from './secrets.js';

/** One of the owner's keys, masked; another owner's key is indistinguishable from none. */
export async function getKey(deps: KeypoolDeps, input: { ownerId: bigint; id: bigint }): Promise<KeyView> {
  const record = await deps.store.find(input.ownerId, input.id);
  if (!record) {
    throw new AppError(ErrorCode.NotFound, `key ${input.id} does not exist`);
  }
  return maskedView(record);
}
