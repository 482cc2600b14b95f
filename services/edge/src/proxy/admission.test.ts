import { AppError, usd } from '@gw/kit';
import type { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { assertMayCallAi } from './admission.js';

const account = (balanceNano: bigint, spendBlocked = false, isRoot = false) =>
  ({ balanceNano, spendBlocked, isRoot }) as accounts.Account;

function refusal(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'other';
  }
}

describe('assertMayCallAi', () => {
  it('admits an account above the floor', () => {
    expect(refusal(() => assertMayCallAi(account(1n), 0n))).toBeUndefined();
    expect(refusal(() => assertMayCallAi(account(usd('0.26')), usd('0.25')))).toBeUndefined();
  });

  it('refuses at and below the floor, including a negative (post-paid) balance', () => {
    expect(refusal(() => assertMayCallAi(account(0n), 0n))).toBe('quota_exceeded');
    expect(refusal(() => assertMayCallAi(account(-5n), 0n))).toBe('quota_exceeded');
    expect(refusal(() => assertMayCallAi(account(usd('0.25')), usd('0.25')))).toBe('quota_exceeded');
  });

  it('admits root, which mints credit and holds none, but not past a HardLimit', () => {
    expect(refusal(() => assertMayCallAi(account(0n, false, true), 0n))).toBeUndefined();
    expect(refusal(() => assertMayCallAi(account(0n, true, true), 0n))).toBe('quota_exceeded');
  });

  it('refuses an account whose monthly HardLimit is reached, whatever its balance', () => {
    expect(refusal(() => assertMayCallAi(account(usd(100), true), 0n))).toBe('quota_exceeded');
  });
});
