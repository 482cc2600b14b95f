import { AppError, ErrorCode, usd } from '@gw/kit';
import { z } from 'zod';

/** A bill's span of UTC days (inclusive) and what asking for it costs. */
export interface BillSpan {
  startDay: string;
  endDay: string;
  days: number;
  feeNano: bigint;
}

/** Spans up to this many days are free; longer ones cost BILL_FEE_LONG. */
export const FREE_BILL_DAYS = 30;
/** Spans longer than this are cut to it (ending on the asked end day) and cost BILL_FEE_YEAR. */
export const MAX_BILL_DAYS = 365;
export const BILL_FEE_LONG = usd('0.01');
export const BILL_FEE_YEAR = usd('0.05');

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;

const day = z.string().max(10).optional();

/** A bill's date parameters (docs/decisions.md §18); checked further by billSpan. */
export const billQuery = z.object({
  date: day,
  d: day,
  start: day,
  s: day,
  start_date: day,
  end: day,
  e: day,
  end_date: day,
  days: z.string().max(5).optional(),
});

export type BillQuery = Partial<Record<string, unknown>>;

function text(query: BillQuery, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string' && value !== '') {
      return value;
    }
  }
  return undefined;
}

/** What a field accepts, as its error names it: `date`/`d` also take a month. */
const FORMS = { day: 'a date YYYY-MM-DD', dayOrMonth: 'a date YYYY-MM-DD or a month YYYY-MM' } as const;

function dayOf(value: string, field: string, forms: string = FORMS.day): number {
  const time = Date.parse(`${value}T00:00:00Z`);
  if (!DAY.test(value) || Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
    throw new AppError(ErrorCode.InvalidRequest, `${field}: must be ${forms}`, { field });
  }
  return time;
}

const iso = (time: number) => new Date(time).toISOString().slice(0, 10);
const monthStart = (time: number) => Date.parse(`${iso(time).slice(0, 7)}-01T00:00:00Z`);
const nextMonth = (time: number) => {
  const date = new Date(time);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
};

/**
 * Reads a bill's days from its query: `date`/`d` (one day, or a month as YYYY-MM),
 * `start`/`s`/`start_date` and `end`/`e`/`end_date` (inclusive; a missing end is today, a missing
 * start the first of the end's month), `days` (the last N days up to today); nothing: the
 * current UTC month up to today. Over 30 days costs 0.01 USD; over 365 it is cut to the last 365
 * days of the span and costs 0.05 USD (docs/decisions.md §18).
 */
export function billSpan(query: BillQuery, now: Date): BillSpan {
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  let start: number;
  let end: number;
  const date = text(query, 'date', 'd');
  const startText = text(query, 'start', 's', 'start_date');
  const endText = text(query, 'end', 'e', 'end_date');
  const daysText = text(query, 'days');
  if (date !== undefined) {
    if (MONTH.test(date)) {
      start = dayOf(`${date}-01`, 'date', FORMS.dayOrMonth);
      end = nextMonth(start) - DAY_MS;
    } else {
      start = end = dayOf(date, 'date', FORMS.dayOrMonth);
    }
  } else if (startText !== undefined || endText !== undefined) {
    end = endText === undefined ? today : dayOf(endText, 'end');
    start = startText === undefined ? monthStart(end) : dayOf(startText, 'start');
  } else if (daysText !== undefined) {
    if (!/^\d{1,5}$/.test(daysText) || Number(daysText) < 1 || Number(daysText) > 3650) {
      throw new AppError(ErrorCode.InvalidRequest, 'days: must be a whole number from 1 to 3650', {
        field: 'days',
      });
    }
    end = today;
    start = today - (Number(daysText) - 1) * DAY_MS;
  } else {
    start = monthStart(today);
    end = today;
  }
  if (start > end) {
    throw new AppError(ErrorCode.InvalidRequest, 'start: must not be after end', { field: 'start' });
  }
  let days = (end - start) / DAY_MS + 1;
  let feeNano = 0n;
  if (days > MAX_BILL_DAYS) {
    start = end - (MAX_BILL_DAYS - 1) * DAY_MS;
    days = MAX_BILL_DAYS;
    feeNano = BILL_FEE_YEAR;
  } else if (days > FREE_BILL_DAYS) {
    feeNano = BILL_FEE_LONG;
  }
  return { startDay: iso(start), endDay: iso(end), days, feeNano };
}
