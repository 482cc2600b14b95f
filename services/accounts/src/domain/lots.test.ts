import { describe, expect, it } from 'vitest';
import { balanceOf, DAY_MS, expiryAfterDays, planSpend, planSpendUpTo } from './lots.js';
import type { CreditLot } from './model.js';

const NOW = new Date('2025-06-01T12:00:00.000Z');

function inDays(days: number): Date {
  return new Date(NOW.getTime() + days * DAY_MS);
}

function makeLot(overrides: Partial<CreditLot> = {}): CreditLot {
  return { id: 1n, accountId: 10n, remainingNano: 1_000n, expiresAt: inDays(30), ...overrides };
}

describe('planSpend', () => {
  it('takes everything from one lot that covers the amount', () => {
    const lots = [makeLot({ id: 1n, remainingNano: 1_000n })];

    expect(planSpend(lots, 400n, NOW)).toEqual([{ lotId: 1n, takeNano: 400n }]);
  });

  it('spends the lot that expires first, whatever the input order', () => {
    const lots = [
      makeLot({ id: 1n, remainingNano: 1_000n, expiresAt: inDays(90) }),
      makeLot({ id: 2n, remainingNano: 1_000n, expiresAt: inDays(10) }),
      makeLot({ id: 3n, remainingNano: 1_000n, expiresAt: inDays(30) }),
    ];

    expect(planSpend(lots, 500n, NOW)).toEqual([{ lotId: 2n, takeNano: 500n }]);
  });

  it('splits the amount across lots in expiry order, emptying all but the last', () => {
    const lots = [
      makeLot({ id: 1n, remainingNano: 300n, expiresAt: inDays(60) }),
      makeLot({ id: 2n, remainingNano: 100n, expiresAt: inDays(5) }),
      makeLot({ id: 3n, remainingNano: 200n, expiresAt: inDays(20) }),
    ];

    expect(planSpend(lots, 450n, NOW)).toEqual([
      { lotId: 2n, takeNano: 100n },
      { lotId: 3n, takeNano: 200n },
      { lotId: 1n, takeNano: 150n },
    ]);
  });

  it('spends the lower id first when two lots expire at the same instant', () => {
    const expiresAt = inDays(7);
    const lots = [
      makeLot({ id: 9n, remainingNano: 100n, expiresAt }),
      makeLot({ id: 4n, remainingNano: 100n, expiresAt }),
    ];

    expect(planSpend(lots, 150n, NOW)).toEqual([
      { lotId: 4n, takeNano: 100n },
      { lotId: 9n, takeNano: 50n },
    ]);
  });

  it('spends the exact total of all lots', () => {
    const lots = [
      makeLot({ id: 1n, remainingNano: 300n }),
      makeLot({ id: 2n, remainingNano: 200n, expiresAt: inDays(40) }),
    ];

    expect(planSpend(lots, 500n, NOW)).toEqual([
      { lotId: 1n, takeNano: 300n },
      { lotId: 2n, takeNano: 200n },
    ]);
  });

  it('ignores a lot exactly at its expiry instant', () => {
    const lots = [
      makeLot({ id: 1n, remainingNano: 1_000n, expiresAt: new Date(NOW.getTime()) }),
      makeLot({ id: 2n, remainingNano: 1_000n, expiresAt: new Date(NOW.getTime() + 1) }),
    ];

    expect(planSpend(lots, 100n, NOW)).toEqual([{ lotId: 2n, takeNano: 100n }]);
  });

  it('skips empty lots', () => {
    const lots = [
      makeLot({ id: 1n, remainingNano: 0n, expiresAt: inDays(1) }),
      makeLot({ id: 2n, remainingNano: 50n }),
    ];

    expect(planSpend(lots, 50n, NOW)).toEqual([{ lotId: 2n, takeNano: 50n }]);
  });

  it('returns undefined when the unexpired lots fall one nano short', () => {
    const lots = [
      makeLot({ id: 1n, remainingNano: 300n }),
      makeLot({ id: 2n, remainingNano: 200n }),
      makeLot({ id: 3n, remainingNano: 10_000n, expiresAt: inDays(-1) }),
    ];

    expect(planSpend(lots, 501n, NOW)).toBeUndefined();
  });

  it('returns undefined when every lot has expired', () => {
    expect(planSpend([makeLot({ expiresAt: NOW })], 1n, NOW)).toBeUndefined();
    expect(planSpend([], 1n, NOW)).toBeUndefined();
  });

  it('does not change the lots it is given', () => {
    const lots = [makeLot({ id: 2n, expiresAt: inDays(9) }), makeLot({ id: 1n, expiresAt: inDays(1) })];
    const before = structuredClone(lots);

    planSpend(lots, 1_500n, NOW);

    expect(lots).toEqual(before);
  });
});

describe('balanceOf', () => {
  it('sums the remaining credit of unexpired lots', () => {
    const lots = [makeLot({ remainingNano: 300n }), makeLot({ remainingNano: 200n, expiresAt: inDays(400) })];

    expect(balanceOf(lots, NOW)).toBe(500n);
  });

  it('leaves out a lot from its expiry instant on', () => {
    const lots = [
      makeLot({ remainingNano: 300n, expiresAt: new Date(NOW.getTime()) }),
      makeLot({ remainingNano: 200n, expiresAt: inDays(-1) }),
      makeLot({ remainingNano: 7n, expiresAt: new Date(NOW.getTime() + 1) }),
    ];

    expect(balanceOf(lots, NOW)).toBe(7n);
  });

  it('is zero with no lots', () => {
    expect(balanceOf([], NOW)).toBe(0n);
  });
});

describe('expiryAfterDays', () => {
  it('adds whole days in milliseconds', () => {
    expect(expiryAfterDays(NOW, 180).toISOString()).toBe('2025-11-28T12:00:00.000Z');
  });
});

describe('planSpendUpTo', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const lot = (id: bigint, remainingNano: bigint, days: number) => ({
    id,
    accountId: 1n,
    remainingNano,
    expiresAt: new Date(now.getTime() + days * 86_400_000),
  });

  it('takes what the lots hold, earliest expiry first, and reports the shortfall', () => {
    const plan = planSpendUpTo([lot(1n, 5n, 10), lot(2n, 3n, 1), lot(3n, 9n, -1)], 10n, now);
    expect(plan.steps).toEqual([
      { lotId: 2n, takeNano: 3n },
      { lotId: 1n, takeNano: 5n },
    ]);
    expect(plan.shortfallNano).toBe(2n);
  });

  it('has no shortfall when the lots cover the amount', () => {
    expect(planSpendUpTo([lot(1n, 5n, 10)], 4n, now)).toEqual({
      steps: [{ lotId: 1n, takeNano: 4n }],
      shortfallNano: 0n,
    });
    expect(planSpendUpTo([], 4n, now)).toEqual({ steps: [], shortfallNano: 4n });
  });
});
