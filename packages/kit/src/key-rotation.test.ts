import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyCheckOpens, sealKeyCheck } from './key-check.js';
import { reseal, rotateCiphers, type CipherRotationTx, type KeyRotation } from './key-rotation.js';
import { createSecretBox } from './secret-box.js';

interface Row {
  id: number;
  cipher: string;
}

const newBox = () => createSecretBox(randomBytes(32).toString('hex'));

/** The rows and key check of a service, in memory; `transaction` works on a copy it keeps only on success. */
function memoryStore(rows: Row[], keyCheck: string | undefined) {
  const state = { rows, keyCheck };
  return {
    state,
    async transaction<T>(work: (tx: CipherRotationTx<Row>) => Promise<T>): Promise<T> {
      const draft = { rows: state.rows.map((row) => ({ ...row })), keyCheck: state.keyCheck };
      const result = await work({
        lockKeyCheck: () => Promise.resolve(draft.keyCheck),
        lockSealedRows: () => Promise.resolve(draft.rows.map((row) => ({ ...row }))),
        updateSealedRow: (row) => {
          draft.rows = draft.rows.map((stored) => (stored.id === row.id ? row : stored));
          return Promise.resolve();
        },
        saveKeyCheck: (cipher) => {
          draft.keyCheck = cipher;
          return Promise.resolve();
        },
      });
      Object.assign(state, draft);
      return result;
    },
  };
}

describe('rotateCiphers', () => {
  const from = newBox();
  const to = newBox();
  const rotation: KeyRotation = { from, to, purpose: 'keypool' };
  const resealRow = (row: Row) => ({
    ...row,
    cipher: reseal(rotation, row.cipher, `owner:${row.id}`, `row ${row.id}`),
  });
  const sealedRows = () => [1, 2].map((id) => ({ id, cipher: from.seal(`secret-${id}`, `owner:${id}`) }));

  it('re-encrypts every row under the new key, same associated data, and seals the key check anew', async () => {
    const store = memoryStore(sealedRows(), sealKeyCheck(from, 'keypool'));
    expect(await rotateCiphers((work) => store.transaction(work), rotation, resealRow)).toEqual({
      alreadyRotated: false,
      rows: 2,
    });
    expect(store.state.rows.map((row) => to.open(row.cipher, `owner:${row.id}`))).toEqual([
      'secret-1',
      'secret-2',
    ]);
    expect(store.state.rows.map((row) => from.open(row.cipher, `owner:${row.id}`))).toEqual([
      undefined,
      undefined,
    ]);
    expect(keyCheckOpens(to, store.state.keyCheck ?? '', 'keypool')).toBe(true);
  });

  it('changes nothing when the key check already opens with the new key', async () => {
    const store = memoryStore(sealedRows(), sealKeyCheck(to, 'keypool'));
    const before = structuredClone(store.state);
    expect(await rotateCiphers((work) => store.transaction(work), rotation, resealRow)).toEqual({
      alreadyRotated: true,
    });
    expect(store.state).toEqual(before);
  });

  it('stops, changing nothing, when neither key opens the key check', async () => {
    const store = memoryStore(sealedRows(), sealKeyCheck(newBox(), 'keypool'));
    const before = structuredClone(store.state);
    await expect(rotateCiphers((work) => store.transaction(work), rotation, resealRow)).rejects.toThrow(
      /GW_SECRET_KEY is not the key the keypool secrets/,
    );
    expect(store.state).toEqual(before);
  });

  it('stops, changing nothing, when one row does not open with the old key', async () => {
    const rows = [...sealedRows(), { id: 3, cipher: newBox().seal('elsewhere', 'owner:3') }];
    const store = memoryStore(rows, sealKeyCheck(from, 'keypool'));
    const before = structuredClone(store.state);
    await expect(rotateCiphers((work) => store.transaction(work), rotation, resealRow)).rejects.toThrow(
      'row 3 does not open with GW_SECRET_KEY',
    );
    expect(store.state).toEqual(before);
  });
});
