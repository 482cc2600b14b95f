import { lockKeyCheck, replaceKeyCheck, type Database, type InRotationTransaction } from '@gw/kit';
import { asc, eq } from 'drizzle-orm';
import type { SealedKey } from '../domain/rotate-secret-key.js';
import { providerKeys } from './schema.js';

/** The pool's ciphers and key check for a key rotation, in one transaction with every row locked. */
export function keyRotationTransaction(db: Database): InRotationTransaction<SealedKey> {
  return (work) =>
    db.transaction((tx) =>
      work({
        lockKeyCheck: () => lockKeyCheck(tx, 'keypool'),
        lockSealedRows: () =>
          tx
            .select({
              id: providerKeys.id,
              ownerId: providerKeys.ownerId,
              secretEnc: providerKeys.secretEnc,
              configSecretsEnc: providerKeys.configSecretsEnc,
            })
            .from(providerKeys)
            .orderBy(asc(providerKeys.id))
            .for('update'),
        async updateSealedRow(key) {
          // updated_at stays: the key itself did not change.
          await tx
            .update(providerKeys)
            .set({ secretEnc: key.secretEnc, configSecretsEnc: key.configSecretsEnc })
            .where(eq(providerKeys.id, key.id));
        },
        saveKeyCheck: (cipher) => replaceKeyCheck(tx, 'keypool', cipher),
      }),
    );
}
