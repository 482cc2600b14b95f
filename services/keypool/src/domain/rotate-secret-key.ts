import {
  reseal,
  rotateCiphers,
  type InRotationTransaction,
  type KeyRotation,
  type RotationOutcome,
} from '@gw/kit';
import { aad } from './secrets.js';

/** The sealed columns of one provider key. */
export interface SealedKey {
  id: bigint;
  ownerId: bigint;
  secretEnc: string;
  /** '' when the key has no sensitive Config fields. */
  configSecretsEnc: string;
}

/**
 * `gw secrets rotate-key` for the pool: every provider key's SecretKey and sensitive Config
 * fields, opened with the old GW_SECRET_KEY and sealed with the new one for the same owner, in
 * one transaction with the key check. The plaintext does not change, so no version is bumped.
 */
export function rotateSecretKey(
  inTransaction: InRotationTransaction<SealedKey>,
  rotation: KeyRotation,
): Promise<RotationOutcome> {
  return rotateCiphers(inTransaction, rotation, (key) => ({
    ...key,
    secretEnc: reseal(rotation, key.secretEnc, aad.secret(key.ownerId), `the SecretKey of key ${key.id}`),
    configSecretsEnc:
      key.configSecretsEnc === ''
        ? ''
        : reseal(
            rotation,
            key.configSecretsEnc,
            aad.config(key.ownerId),
            `the Config secrets of key ${key.id}`,
          ),
  }));
}
