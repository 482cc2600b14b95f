import { describe, expect, it } from 'vitest';
import { mayDelete, refundOf } from './delete-account.js';
import type { AccountRecord } from './model.js';

const account = (overrides: Partial<AccountRecord>) =>
  ({ id: 1n, parentId: null, dna: '.1.', isOwner: false, isRoot: false, ...overrides }) as AccountRecord;

describe('refundOf', () => {
  it('takes a fee of min(0.2 USD, remainder) and never refunds below zero', () => {
    expect(refundOf(5_000_000_000n)).toEqual({ refundNano: 4_800_000_000n, feeNano: 200_000_000n });
    expect(refundOf(200_000_000n)).toEqual({ refundNano: 0n, feeNano: 200_000_000n });
    expect(refundOf(150_000_000n)).toEqual({ refundNano: 0n, feeNano: 150_000_000n });
    expect(refundOf(0n)).toEqual({ refundNano: 0n, feeNano: 0n });
    expect(refundOf(-5n)).toEqual({ refundNano: 0n, feeNano: 0n });
  });
});

describe('mayDelete', () => {
  const root = account({ id: 1n, dna: '.1.', isRoot: true, isOwner: true });
  const parent = account({ id: 2n, parentId: 1n, dna: '.1.2.' });
  const child = account({ id: 3n, parentId: 2n, dna: '.1.2.3.' });
  const grandchild = account({ id: 4n, parentId: 3n, dna: '.1.2.3.4.' });
  const owner = account({ id: 5n, parentId: 1n, dna: '.1.5.', isOwner: true });

  it('lets the parent and an owner or root above delete', () => {
    expect(mayDelete(parent, child)).toBe(true);
    expect(mayDelete(root, grandchild)).toBe(true);
  });

  it('refuses a grandparent that is not an owner, the account itself, its child and an owner of another tree', () => {
    expect(mayDelete(parent, grandchild)).toBe(false);
    expect(mayDelete(child, child)).toBe(false);
    expect(mayDelete(grandchild, child)).toBe(false);
    expect(mayDelete(owner, child)).toBe(false);
  });
});
