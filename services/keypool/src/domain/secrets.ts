import { AppError, ErrorCode, ProviderType, type SecretBox } from '@gw/kit';
import type { KeyRecord, KeyView } from './model.js';

/** Associated data binding each cipher to its owner and purpose. */
export const aad = {
  secret: (ownerId: bigint) => `keypool:secret:${ownerId}`,
  config: (ownerId: bigint) => `keypool:config:${ownerId}`,
  ekey: (ownerId: bigint) => `keypool:ekey:${ownerId}`,
};

/** All but the last 4 characters hidden, with a fixed-width mask (the length is not told). */
export function maskSecret(last4: string): string {
  return `********${last4}`;
}

export function lastFour(secret: string): string {
  return secret.slice(-4);
}

function openOrFail(box: SecretBox, cipher: string, associatedData: string): string {
  const plain = box.open(cipher, associatedData);
  if (plain === undefined) {
    // Wrong GW_SECRET_KEY or a damaged row: refuse clearly, never serve garbage (K3).
    throw new AppError(
      ErrorCode.Internal,
      'a stored secret could not be decrypted (is GW_SECRET_KEY the one it was stored with?)',
    );
  }
  return plain;
}

export function openStoredSecret(box: SecretBox, record: KeyRecord): string {
  return openOrFail(box, record.secretEnc, aad.secret(record.ownerId));
}

export function decryptConfigSecrets(box: SecretBox, record: KeyRecord): Record<string, string> {
  if (record.configSecretsEnc === '') {
    return {};
  }
  return JSON.parse(openOrFail(box, record.configSecretsEnc, aad.config(record.ownerId))) as Record<
    string,
    string
  >;
}

const SENSITIVE_CONFIG_FIELDS: Record<string, readonly string[]> = {
  [ProviderType.VertexAi]: ['private_key'],
};

export function maskedView(record: KeyRecord): KeyView {
  const sensitive = SENSITIVE_CONFIG_FIELDS[record.providerType] ?? [];
  return {
    id: record.id,
    ownerId: record.ownerId,
    name: record.name,
    level: record.level,
    provider: record.provider,
    secretKey: maskSecret(record.secretLast4),
    status: record.status,
    config: { ...record.config, ...Object.fromEntries(sensitive.map((field) => [field, '[encrypted]'])) },
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function plainView(box: SecretBox, record: KeyRecord): KeyView {
  return {
    ...maskedView(record),
    secretKey: openStoredSecret(box, record),
    config: { ...record.config, ...decryptConfigSecrets(box, record) },
  };
}
