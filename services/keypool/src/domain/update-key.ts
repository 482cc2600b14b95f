import { AppError, ErrorCode, recordingFailure } from '@gw/kit';
import { keyRowChanges, type KeyFieldsInput } from './key-fields.js';
import type { KeyView } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';
import { maskedView } from './secrets.js';

export interface UpdateKeyInput {
  ownerId: bigint;
  ownerIsRoot: boolean;
  operatorId: bigint;
  ipAddress: string;
  id: bigint;
  fields: KeyFieldsInput;
}

/** Changes the given fields of one of the owner's keys (Status false disables it). */
export async function updateKey(
  deps: KeypoolDeps,
  input: UpdateKeyInput,
): Promise<{ key: KeyView; version: bigint }> {
  const failure = {
    action: 'update_key' as const,
    operatorId: input.operatorId,
    ipAddress: input.ipAddress,
    attempt: `update of key ${input.id}`,
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => updateKeyAs(deps, input),
  );
}

async function updateKeyAs(
  deps: KeypoolDeps,
  input: UpdateKeyInput,
): Promise<{ key: KeyView; version: bigint }> {
  const existing = await deps.store.find(input.ownerId, input.id);
  if (!existing) {
    throw new AppError(ErrorCode.NotFound, `key ${input.id} does not exist`);
  }
  const changes = await keyRowChanges(deps, input.ownerId, input.ownerIsRoot, input.fields, existing);
  const { record, version } = await deps.store.transaction(async (tx) => {
    if (!(await tx.lock(input.ownerId, input.id))) {
      throw new AppError(ErrorCode.NotFound, `key ${input.id} does not exist`);
    }
    const updated = await tx.update(input.ownerId, input.id, changes, deps.clock.now());
    return { record: updated, version: await tx.bumpVersion(input.ownerId, input.ownerIsRoot) };
  });
  deps.events.keysChanged(input.ownerId, version);
  const changed = Object.keys(input.fields).filter(
    (field) => input.fields[field as keyof KeyFieldsInput] !== undefined,
  );
  deps.events.audit({
    action: 'update_key',
    operatorId: input.operatorId,
    targetId: record.id,
    details: `key ${record.id} changed: ${changed.join(', ') || 'nothing'}`,
    ipAddress: input.ipAddress,
  });
  return { key: maskedView(record), version };
}
