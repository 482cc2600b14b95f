import { describe, expect, it } from 'vitest';
import { applySpend, spendOf, type SpendState } from './spend.js';

const state = (overrides: Partial<SpendState> = {}): SpendState => ({
  daySpendNano: 0n,
  dayStart: null,
  monthSpendNano: 0n,
  monthStart: null,
  softAlertMonth: null,
  spendBlocked: false,
  hardLimitNano: 0n,
  softLimitNano: 0n,
  dailyLimitNano: 0n,
  ...overrides,
});

const now = new Date('2026-11-22T10:00:00Z');

describe('spendOf', () => {
  it("reads the stored spend of today and this month, and a past day's or month's as zero", () => {
    const stored = { daySpendNano: 5n, dayStart: '2026-11-22', monthSpendNano: 7n, monthStart: '2026-11-01' };
    expect(spendOf(stored, now)).toEqual({ daySpendNano: 5n, monthSpendNano: 7n });
    expect(spendOf(stored, new Date('2026-11-23T00:00:00Z'))).toEqual({
      daySpendNano: 0n,
      monthSpendNano: 7n,
    });
    expect(spendOf(stored, new Date('2026-12-01T00:00:00Z'))).toEqual({
      daySpendNano: 0n,
      monthSpendNano: 0n,
    });
    expect(spendOf({ ...stored, dayStart: null, monthStart: null }, now)).toEqual({
      daySpendNano: 0n,
      monthSpendNano: 0n,
    });
  });
});

describe('applySpend', () => {
  it('adds to the current day and month and restarts a new period from zero', () => {
    const same = applySpend(
      state({ daySpendNano: 5n, dayStart: '2026-11-22', monthSpendNano: 7n, monthStart: '2026-11-01' }),
      3n,
      now,
    );
    expect(same.next).toMatchObject({ daySpendNano: 8n, monthSpendNano: 10n });
    const next = applySpend(
      state({
        daySpendNano: 5n,
        dayStart: '2026-11-21',
        monthSpendNano: 7n,
        monthStart: '2026-10-01',
        spendBlocked: true,
      }),
      3n,
      now,
    );
    expect(next.next).toMatchObject({
      daySpendNano: 3n,
      dayStart: '2026-11-22',
      monthSpendNano: 3n,
      monthStart: '2026-11-01',
      spendBlocked: false,
    });
  });

  it('blocks when the month reaches HardLimit, reporting the crossing once', () => {
    const crossing = applySpend(
      state({ hardLimitNano: 10n, monthSpendNano: 9n, monthStart: '2026-11-01' }),
      1n,
      now,
    );
    expect(crossing.next.spendBlocked).toBe(true);
    expect(crossing.blockedNow).toBe(true);
    const after = applySpend(
      state({ hardLimitNano: 10n, monthSpendNano: 10n, monthStart: '2026-11-01', spendBlocked: true }),
      1n,
      now,
    );
    expect(after.blockedNow).toBe(false);
    expect(applySpend(state({ hardLimitNano: 0n }), 1_000n, now).next.spendBlocked).toBe(false);
  });

  it('reports the first SoftLimit crossing of a month only', () => {
    const first = applySpend(
      state({ softLimitNano: 10n, monthSpendNano: 8n, monthStart: '2026-11-01' }),
      2n,
      now,
    );
    expect(first.softAlertMonth).toBe('2026-11');
    expect(first.next.softAlertMonth).toBe('2026-11-01');
    const again = applySpend(
      state({
        softLimitNano: 10n,
        monthSpendNano: 12n,
        monthStart: '2026-11-01',
        softAlertMonth: '2026-11-01',
      }),
      2n,
      now,
    );
    expect(again.softAlertMonth).toBeUndefined();
    const below = applySpend(state({ softLimitNano: 10n }), 9n, now);
    expect(below.softAlertMonth).toBeUndefined();
  });

  it("reports the charge that reaches the day's DailyLimit, once, and a new UTC day starts from zero", () => {
    const limit = { dailyLimitNano: 10n, dayStart: '2026-11-22' };
    expect(applySpend(state({ ...limit, daySpendNano: 8n }), 1n, now).dailyReachedNow).toBe(false);
    expect(applySpend(state({ ...limit, daySpendNano: 8n }), 2n, now).dailyReachedNow).toBe(true);
    expect(applySpend(state({ ...limit, daySpendNano: 11n }), 2n, now).dailyReachedNow).toBe(false);
    // Yesterday's spend does not count: 9 today is below the limit.
    const tomorrow = new Date('2026-11-23T00:00:00Z');
    expect(applySpend(state({ ...limit, daySpendNano: 11n }), 9n, tomorrow).dailyReachedNow).toBe(false);
    expect(applySpend(state({ dailyLimitNano: 0n }), 99n, now).dailyReachedNow).toBe(false);
  });
});
