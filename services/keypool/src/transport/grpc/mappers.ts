import { readKeyConfig } from '@gw/kit';
import type { keypool as pb } from '@gw/proto';
import type { KeyFieldsInput } from '../../domain/key-fields.js';
import type { KeyView, SleepingKey } from '../../domain/model.js';

/** A stored Config (checked when it was written) in the contract's form. */
function toProtoConfig(key: KeyView): pb.KeyConfig {
  const read = readKeyConfig(key.config);
  if (!read.ok) {
    throw new Error(
      `key ${key.id}: the stored Config does not fit the contract (${read.field}: ${read.reason})`,
    );
  }
  return read.config;
}

export function toProtoKey(key: KeyView): pb.ProviderKey {
  return {
    id: key.id,
    ownerId: key.ownerId,
    name: key.name,
    level: key.level,
    provider: key.provider,
    secretKey: key.secretKey,
    status: key.status,
    config: toProtoConfig(key),
    // Deprecated field, filled for readers that predate config (docs/adr/0006-typed-contract-fields.md).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    configJson: JSON.stringify(key.config),
    createdAt: key.createdAt.toISOString(),
    updatedAt: key.updatedAt.toISOString(),
  };
}

export function fromProtoFields(fields: pb.KeyFields | undefined): KeyFieldsInput {
  return {
    name: fields?.name,
    level: fields?.level,
    provider: fields?.provider,
    secretKey: fields?.secretKey,
    status: fields?.status,
    // Only an edge that predates config sends the JSON alone (docs/adr/0006-typed-contract-fields.md).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    config: fields?.config ?? fields?.configJson,
  };
}

export function toProtoSleeping(key: SleepingKey): pb.SleepingKey {
  return {
    keyId: key.keyId,
    model: key.model,
    remainingMs: BigInt(key.remainingMs),
    sleepTimes: key.sleepTimes,
  };
}
