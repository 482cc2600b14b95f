import { lockKeyCheck, replaceKeyCheck, type Database, type InRotationTransaction } from '@gw/kit';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { SECRET_KEYS } from '../domain/config-values.js';
import type { SealedValue } from '../domain/rotate-secret-key.js';
import { ownerConfigs } from './schema.js';

/** The owners' secret values and the key check for a key rotation, in one transaction, locked. */
export function keyRotationTransaction(db: Database): InRotationTransaction<SealedValue> {
  return (work) =>
    db.transaction((tx) =>
      work({
        lockKeyCheck: () => lockKeyCheck(tx, 'config'),
        lockSealedRows: () =>
          tx
            .select({ ownerId: ownerConfigs.ownerId, key: ownerConfigs.key, cipher: ownerConfigs.value })
            .from(ownerConfigs)
            .where(inArray(ownerConfigs.key, [...SECRET_KEYS]))
            .orderBy(asc(ownerConfigs.ownerId), asc(ownerConfigs.key))
            .for('update'),
        async updateSealedRow(value) {
          // updated_at stays: the owner's value did not change.
          await tx
            .update(ownerConfigs)
            .set({ value: value.cipher })
            .where(and(eq(ownerConfigs.ownerId, value.ownerId), eq(ownerConfigs.key, value.key)));
        },
        saveKeyCheck: (cipher) => replaceKeyCheck(tx, 'config', cipher),
      }),
    );
}
