import { AppError, ErrorCode, recordingFailure } from '@gw/kit';
import type { KeypoolDeps } from './ports/deps.js';

export interface DeleteKeyInput {
  ownerId: bigint;
  operatorId: bigint;
  ipAddress: string;
  id: bigint;
}

/** Removes one of the owner's keys (and any sleeping state it had). */
export async function deleteKey(
  deps: KeypoolDeps,
  input: DeleteKeyInput,
): Promise<{ id: bigint; version: bigint }> {
  const failure = {
    action: 'delete_key' as const,
    operatorId: input.operatorId,
    ipAddress: input.ipAddress,
    attempt: `delete of key ${input.id}`,
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => deleteKeyAs(deps, input),
  );
}

async function deleteKeyAs(
  deps: KeypoolDeps,
  input: DeleteKeyInput,
): Promise<{ id: bigint; version: bigint }> {
  const version = await deps.store.transaction(async (tx) => {
    if (!(await tx.delete(input.ownerId, input.id))) {
      throw new AppError(ErrorCode.NotFound, `key ${input.id} does not exist`);
    }
    return tx.bumpVersion(input.ownerId);
  });
  await deps.sleeps.clear(input.ownerId, [input.id], deps.clock.now());
  deps.events.keysChanged(input.ownerId, version);
  deps.events.audit({
    action: 'delete_key',
    operatorId: input.operatorId,
    targetId: input.id,
    details: `key ${input.id} deleted`,
    ipAddress: input.ipAddress,
  });
  return { id: input.id, version };
}
