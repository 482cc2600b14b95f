import { describe, expect, it } from 'vitest';
import { hashApiKey } from './api-key-hash.js';

describe('hashApiKey', () => {
  it('is the hex SHA-256 of the key as presented, which accounts stores', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey('sk-gw-ÄÖ')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('sk-gw-a')).not.toBe(hashApiKey('sk-gw-b'));
  });
});
