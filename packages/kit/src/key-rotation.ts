import { keyCheckOpens, sealKeyCheck } from './key-check.js';
import type { SecretBox } from './secret-box.js';

/**
 * Moving a service's ciphers from one GW_SECRET_KEY to another: every cipher is opened with the
 * old key and sealed again with the new one under the same associated data, and the key-check
 * row is sealed anew, in one transaction, so a failure changes nothing.
 */
export interface KeyRotation {
  from: SecretBox;
  to: SecretBox;
  /** The key-check purpose of the service (`keypool`, `config`). */
  purpose: string;
}

/** The service's ciphers inside the rotation's transaction; every read locks until commit. */
export interface CipherRotationTx<Row> {
  lockKeyCheck(): Promise<string | undefined>;
  lockSealedRows(): Promise<Row[]>;
  updateSealedRow(row: Row): Promise<void>;
  saveKeyCheck(cipher: string): Promise<void>;
}

export type InRotationTransaction<Row> = <T>(work: (tx: CipherRotationTx<Row>) => Promise<T>) => Promise<T>;

export type RotationOutcome = { alreadyRotated: true } | { alreadyRotated: false; rows: number };

/** The cipher sealed again under the new key; throws (naming what) when the old key cannot open it. */
export function reseal(rotation: KeyRotation, cipher: string, associatedData: string, what: string): string {
  const plain = rotation.from.open(cipher, associatedData);
  if (plain === undefined) {
    throw new Error(`${what} does not open with GW_SECRET_KEY: nothing was changed`);
  }
  return rotation.to.seal(plain, associatedData);
}

/**
 * Re-encrypts every sealed row of a service in one transaction and seals its key check with the
 * new key. A key check that already opens with the new key means a finished rotation: nothing is
 * changed, so running the command again is safe. One that neither key opens stops everything.
 */
export async function rotateCiphers<Row>(
  inTransaction: InRotationTransaction<Row>,
  rotation: KeyRotation,
  resealRow: (row: Row) => Row,
): Promise<RotationOutcome> {
  return inTransaction(async (tx) => {
    const keyCheck = await tx.lockKeyCheck();
    if (keyCheck !== undefined && keyCheckOpens(rotation.to, keyCheck, rotation.purpose)) {
      return { alreadyRotated: true };
    }
    if (keyCheck !== undefined && !keyCheckOpens(rotation.from, keyCheck, rotation.purpose)) {
      throw new Error(
        `GW_SECRET_KEY is not the key the ${rotation.purpose} secrets were encrypted with (nor is the new key)`,
      );
    }
    const rows = await tx.lockSealedRows();
    for (const row of rows) {
      await tx.updateSealedRow(resealRow(row));
    }
    await tx.saveKeyCheck(sealKeyCheck(rotation.to, rotation.purpose));
    return { alreadyRotated: false, rows: rows.length };
  });
}
