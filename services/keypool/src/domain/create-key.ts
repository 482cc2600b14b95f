import { AppError, ErrorCode, recordingFailure } from '@gw/kit';
import { keyRowChanges, type KeyFieldsInput } from './key-fields.js';
import type { KeyRow, KeyView } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';
import { maskedView } from './secrets.js';

export interface CreateKeyInput {
  ownerId: bigint;
  ownerIsRoot: boolean;
  operatorId: bigint;
  ipAddress: string;
  fields: KeyFieldsInput;
}

function required(field: string): never {
  throw new AppError(ErrorCode.InvalidRequest, `${field}: is required`, { field });
}

/**
 * Adds a key to the owner's pool: validated, secrets sealed, version bumped, event published;
 * then LEVEL_MAPPER is auto-completed from the Provider (best effort, logged as auto_config).
 */
export async function createKey(
  deps: KeypoolDeps,
  input: CreateKeyInput,
): Promise<{ key: KeyView; version: bigint; autoLevelMapper: Record<string, number> }> {
  const failure = {
    action: 'add_key' as const,
    operatorId: input.operatorId,
    ipAddress: input.ipAddress,
    attempt: 'adding a key',
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => createKeyAs(deps, input),
  );
}

async function createKeyAs(
  deps: KeypoolDeps,
  input: CreateKeyInput,
): Promise<{ key: KeyView; version: bigint; autoLevelMapper: Record<string, number> }> {
  const { fields } = input;
  if (fields.secretKey === undefined) {
    required('SecretKey');
  }
  if (fields.level === undefined) {
    required('Level');
  }
  if (fields.provider === undefined) {
    required('Provider');
  }
  const changes = await keyRowChanges(deps, input.ownerId, input.ownerIsRoot, fields, undefined);
  const row: KeyRow = {
    ownerId: input.ownerId,
    name: '',
    status: true,
    ...changes,
  } as KeyRow;
  const { record, version } = await deps.store.transaction(async (tx) => {
    const inserted = await tx.insert(row, deps.clock.now());
    return { record: inserted, version: await tx.bumpVersion(input.ownerId, input.ownerIsRoot) };
  });
  deps.events.keysChanged(input.ownerId, version);
  deps.events.audit({
    action: 'add_key',
    operatorId: input.operatorId,
    targetId: record.id,
    details: `key ${record.id} level ${record.level} provider ${record.provider}`,
    ipAddress: input.ipAddress,
  });
  let autoLevelMapper: Record<string, number> = {};
  try {
    autoLevelMapper = await deps.autoConfig.complete({
      ownerId: input.ownerId,
      provider: record.provider,
      level: record.level,
      operatorId: input.operatorId,
      ipAddress: input.ipAddress,
    });
  } catch {
    // The key is added either way; the adapter logs why the auto-completion failed.
  }
  return { key: maskedView(record), version, autoLevelMapper };
}
