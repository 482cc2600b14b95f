import type { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { usd } from '../money.js';
import { assertMayCallAi } from './admission.js';

const account = (
  balanceNano: bigint,
  spendBlocked = false,
  isRoot = false,
  daily: Partial<accounts.Account> = {},
) =>
  ({
    balanceNano,
    spendBlocked,
    isRoot,
    dailyLimitNano: 0n,
    daySpendNano: 0n,
    spendDay: '',
    ...daily,
  }) as accounts.Account;

const NOW = new Date('2026-11-23T23:59:59.999Z');

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
    expect(refusal(() => assertMayCallAi(account(1n), 0n, NOW))).toBeUndefined();
    expect(refusal(() => assertMayCallAi(account(usd('0.26')), usd('0.25'), NOW))).toBeUndefined();
  });

  it('refuses at and below the floor, including a negative (post-paid) balance', () => {
    expect(refusal(() => assertMayCallAi(account(0n), 0n, NOW))).toBe('quota_exceeded');
    expect(refusal(() => assertMayCallAi(account(-5n), 0n, NOW))).toBe('quota_exceeded');
    expect(refusal(() => assertMayCallAi(account(usd('0.25')), usd('0.25'), NOW))).toBe('quota_exceeded');
  });

  it('admits root, which mints credit and holds none, but not past a HardLimit', () => {
    expect(refusal(() => assertMayCallAi(account(0n, false, true), 0n, NOW))).toBeUndefined();
    expect(refusal(() => assertMayCallAi(account(0n, true, true), 0n, NOW))).toBe('quota_exceeded');
  });

  it('refuses an account whose monthly HardLimit is reached, whatever its balance', () => {
    expect(refusal(() => assertMayCallAi(account(usd(100), true), 0n, NOW))).toBe('quota_exceeded');
  });

  it("refuses once the UTC day's spend reaches DailyLimit, and admits again from midnight", () => {
    const spent = account(usd(100), false, false, {
      dailyLimitNano: usd(1),
      daySpendNano: usd(1),
      spendDay: '2026-11-23',
    });
    expect(refusal(() => assertMayCallAi(spent, 0n, NOW))).toBe('quota_exceeded');
    expect(refusal(() => assertMayCallAi({ ...spent, daySpendNano: usd('0.99') }, 0n, NOW))).toBeUndefined();
    expect(refusal(() => assertMayCallAi(spent, 0n, new Date('2026-11-24T00:00:00Z')))).toBeUndefined();
    expect(refusal(() => assertMayCallAi({ ...spent, dailyLimitNano: 0n }, 0n, NOW))).toBeUndefined();
  });
});
