import type { keypool as pb } from '@gw/proto';
import type { KeyFieldsInput } from '../../domain/key-fields.js';
import type { KeyView, SleepingKey } from '../../domain/model.js';

export function toProtoKey(key: KeyView): pb.ProviderKey {
  return {
    id: key.id,
    ownerId: key.ownerId,
    name: key.name,
    level: key.level,
    provider: key.provider,
    secretKey: key.secretKey,
    status: key.status,
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
    configJson: fields?.configJson,
  };
}

export function toProtoSleeping(key: SleepingKey): pb.SleepingKey {
  return { keyId: key.keyId, remainingMs: BigInt(key.remainingMs), sleepTimes: key.sleepTimes };
}
