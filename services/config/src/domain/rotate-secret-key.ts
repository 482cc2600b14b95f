import {
  reseal,
  rotateCiphers,
  type InRotationTransaction,
  type KeyRotation,
  type RotationOutcome,
} from '@gw/kit';
import { passAad } from './owner-config.js';

/** One stored secret value (EMAIL_PASS) of an owner, as its cipher. */
export interface SealedValue {
  ownerId: bigint;
  key: string;
  cipher: string;
}

/**
 * `gw secrets rotate-key` for owner configuration: every secret value (EMAIL_PASS), opened with
 * the old GW_SECRET_KEY and sealed with the new one for the same owner, in one transaction with
 * the key check. The plaintext does not change, so no version is bumped.
 */
export function rotateSecretKey(
  inTransaction: InRotationTransaction<SealedValue>,
  rotation: KeyRotation,
): Promise<RotationOutcome> {
  return rotateCiphers(inTransaction, rotation, (value) => ({
    ...value,
    cipher: reseal(rotation, value.cipher, passAad(value.ownerId), `${value.key} of owner ${value.ownerId}`),
  }));
}
