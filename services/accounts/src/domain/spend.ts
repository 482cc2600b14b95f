import type { SpendUpdate } from './ports/accounts.js';

export interface SpendState {
  daySpendNano: bigint;
  dayStart: string | null;
  monthSpendNano: bigint;
  monthStart: string | null;
  softAlertMonth: string | null;
  spendBlocked: boolean;
  hardLimitNano: bigint;
  softLimitNano: bigint;
  dailyLimitNano: bigint;
}

export interface SpendOutcome {
  next: SpendUpdate;
  /** HardLimit was reached by this charge: the edge must learn at once. */
  blockedNow: boolean;
  /** The day's DailyLimit was reached by this charge: the edge must learn at once too. */
  dailyReachedNow: boolean;
  /** 'YYYY-MM' when this charge is the month's first SoftLimit crossing. */
  softAlertMonth: string | undefined;
}

/** UTC day 'YYYY-MM-DD' and month start 'YYYY-MM-01'. */
export function spendPeriods(now: Date): { day: string; month: string } {
  const day = now.toISOString().slice(0, 10);
  return { day, month: `${day.slice(0, 7)}-01` };
}

/** The day and month spend as of now: the spend of a past day or month reads as zero. */
export function spendOf(
  state: Pick<SpendState, 'daySpendNano' | 'dayStart' | 'monthSpendNano' | 'monthStart'>,
  now: Date,
): { daySpendNano: bigint; monthSpendNano: bigint } {
  const { day, month } = spendPeriods(now);
  return {
    daySpendNano: state.dayStart === day ? state.daySpendNano : 0n,
    monthSpendNano: state.monthStart === month ? state.monthSpendNano : 0n,
  };
}

export function isHardLimitReached(hardLimitNano: bigint, monthSpendNano: bigint): boolean {
  return hardLimitNano > 0n && monthSpendNano >= hardLimitNano;
}

/** The UTC day's spend reached DailyLimit (0: no daily limit). */
export function isDailyLimitReached(dailyLimitNano: bigint, daySpendNano: bigint): boolean {
  return dailyLimitNano > 0n && daySpendNano >= dailyLimitNano;
}

/**
 * Adds one charge to the day and month spend (UTC periods; a new period starts from zero), marks
 * the account when the month's spend reaches HardLimit, and reports the first SoftLimit crossing
 * of the month (once: the month is remembered).
 */
export function applySpend(state: SpendState, amountNano: bigint, now: Date): SpendOutcome {
  const { day, month } = spendPeriods(now);
  const current = spendOf(state, now);
  const daySpendNano = current.daySpendNano + amountNano;
  const sameMonth = state.monthStart === month;
  const monthSpendNano = current.monthSpendNano + amountNano;
  const spendBlocked = isHardLimitReached(state.hardLimitNano, monthSpendNano);
  const wasBlocked = sameMonth && state.spendBlocked;
  const softCrossed =
    state.softLimitNano > 0n && monthSpendNano >= state.softLimitNano && state.softAlertMonth !== month;
  return {
    next: {
      daySpendNano,
      dayStart: day,
      monthSpendNano,
      monthStart: month,
      spendBlocked,
      softAlertMonth: softCrossed ? month : state.softAlertMonth,
    },
    blockedNow: spendBlocked && !wasBlocked,
    dailyReachedNow:
      isDailyLimitReached(state.dailyLimitNano, daySpendNano) &&
      !isDailyLimitReached(state.dailyLimitNano, current.daySpendNano),
    softAlertMonth: softCrossed ? month.slice(0, 7) : undefined,
  };
}
