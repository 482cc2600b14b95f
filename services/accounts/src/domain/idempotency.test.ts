import { AppError } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { checkIdempotency, decodeSnapshot, encodeSnapshot, runOnce } from './idempotency.js';
import type { IdempotencyKeys, StoredIdempotency } from './ports/idempotency.js';

function fakeTx(stored?: StoredIdempotency) {
  const saved: string[] = [];
  const tx: IdempotencyKeys = {
    claim: async () => stored,
    saveResponse: async (_caller: bigint, _key: string, response: string) => {
      saved.push(response);
    },
  };
  return { tx, saved };
}

const HASH = 'a'.repeat(64);
const AT = new Date('2026-01-02T03:04:05Z');

describe('snapshots', () => {
  it('keep bigint and Date through JSON', () => {
    const value = { id: 12n, at: new Date('2026-01-02T03:04:05Z'), nested: [{ n: -5n }], text: 'x' };
    expect(decodeSnapshot(encodeSnapshot(value))).toEqual(value);
  });
});

describe('runOnce', () => {
  it('runs the work and stores its answer for a new key', async () => {
    const { tx, saved } = fakeTx();
    const result = await runOnce(
      tx,
      { callerId: 1n, key: 'k', requestHash: HASH },
      'update',
      AT,
      async () => ({
        amount: 3n,
      }),
    );
    expect(result).toEqual({ value: { amount: 3n }, replayed: false });
    expect(saved).toHaveLength(1);
  });

  it('replays the stored answer for the same request without running the work', async () => {
    const { tx } = fakeTx({
      requestHash: HASH,
      operation: 'update',
      response: encodeSnapshot({ amount: 3n }),
    });
    let ran = false;
    const result = await runOnce(
      tx,
      { callerId: 1n, key: 'k', requestHash: HASH },
      'update',
      AT,
      async () => {
        ran = true;
        return { amount: 4n };
      },
    );
    expect(result).toEqual({ value: { amount: 3n }, replayed: true });
    expect(ran).toBe(false);
  });

  it('refuses another request under the same key with a conflict', async () => {
    const { tx } = fakeTx({ requestHash: 'b'.repeat(64), operation: 'update', response: '{}' });
    await expect(
      runOnce(tx, { callerId: 1n, key: 'k', requestHash: HASH }, 'update', AT, async () => 1),
    ).rejects.toMatchObject({ code: 'conflict' });
    const other = fakeTx({ requestHash: HASH, operation: 'create', response: '{}' });
    await expect(
      runOnce(other.tx, { callerId: 1n, key: 'k', requestHash: HASH }, 'delete', AT, async () => 1),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('checks the key and the hash', () => {
    expect(() => checkIdempotency({ callerId: 1n, key: '', requestHash: '' })).not.toThrow();
    expect(() => checkIdempotency({ callerId: 1n, key: 'a b', requestHash: HASH })).toThrow(AppError);
    expect(() => checkIdempotency({ callerId: 1n, key: 'k', requestHash: 'nothex' })).toThrow(AppError);
  });
});
