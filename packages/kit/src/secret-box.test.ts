import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySecretKey } from './key-check.js';
import { createSecretBox, secretKeyEnv } from './secret-box.js';

const box = createSecretBox(randomBytes(32).toString('hex'));

describe('secret box', () => {
  it('round-trips and never repeats a cipher', () => {
    const a = box.seal('sk-upstream-secret-0123456789', 'key:1');
    const b = box.seal('sk-upstream-secret-0123456789', 'key:1');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^gw1\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain('sk-upstream');
    expect(box.open(a, 'key:1')).toBe('sk-upstream-secret-0123456789');
  });

  it('refuses another associated data, a tampered cipher, another key and garbage', () => {
    const sealed = box.seal('hello world', 'ekey:1');
    expect(box.open(sealed, 'ekey:2')).toBeUndefined();
    const raw = Buffer.from(sealed.slice(4), 'base64url');
    for (const index of [0, 13, raw.length - 1]) {
      const flipped = Buffer.from(raw);
      flipped[index] = (flipped[index] ?? 0) ^ 1;
      expect(box.open(`gw1.${flipped.toString('base64url')}`, 'ekey:1')).toBeUndefined();
    }
    expect(createSecretBox(randomBytes(32).toString('hex')).open(sealed, 'ekey:1')).toBeUndefined();
    for (const garbage of ['', 'gw1.', 'gw1.abc', 'hello', 'gw1.!!!!', sealed.slice(0, -2)]) {
      expect(box.open(garbage, 'ekey:1')).toBeUndefined();
    }
  });

  it('validates GW_SECRET_KEY', () => {
    expect(secretKeyEnv.safeParse('ab'.repeat(32)).success).toBe(true);
    expect(secretKeyEnv.safeParse('ab'.repeat(31)).success).toBe(false);
    expect(secretKeyEnv.safeParse('zz'.repeat(32)).success).toBe(false);
    expect(secretKeyEnv.safeParse(undefined).success).toBe(false);
  });
});

describe('verifySecretKey', () => {
  const memory = () => {
    let cipher: string | undefined;
    return {
      readKeyCheck: () => Promise.resolve(cipher),
      saveKeyCheck: (value: string) => Promise.resolve((cipher ??= value)),
    };
  };

  it('stores a check on the first start, accepts the same key and refuses another', async () => {
    const store = memory();
    const key = randomBytes(32).toString('hex');
    await verifySecretKey(store, createSecretBox(key), 'keypool');
    await verifySecretKey(store, createSecretBox(key), 'keypool');
    await expect(
      verifySecretKey(store, createSecretBox(randomBytes(32).toString('hex')), 'keypool'),
    ).rejects.toThrow(/GW_SECRET_KEY/);
  });
});
