import { usd } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { billSpan } from './bill-span.js';

const NOW = new Date('2026-03-15T10:00:00Z');

describe('billSpan', () => {
  it('defaults to the current UTC month up to today, free', () => {
    expect(billSpan({}, NOW)).toEqual({
      startDay: '2026-03-01',
      endDay: '2026-03-15',
      days: 15,
      feeNano: 0n,
    });
  });

  it('reads one day, a month, a range with its aliases and the last N days', () => {
    expect(billSpan({ d: '2026-02-03' }, NOW)).toMatchObject({
      startDay: '2026-02-03',
      endDay: '2026-02-03',
    });
    expect(billSpan({ date: '2024-02' }, NOW)).toMatchObject({
      startDay: '2024-02-01',
      endDay: '2024-02-29',
      days: 29,
    });
    expect(billSpan({ s: '2026-01-10', e: '2026-01-20' }, NOW)).toMatchObject({ days: 11 });
    expect(billSpan({ start_date: '2026-01-10', end_date: '2026-01-12' }, NOW)).toMatchObject({ days: 3 });
    expect(billSpan({ end: '2026-02-10' }, NOW)).toMatchObject({ startDay: '2026-02-01', days: 10 });
    expect(billSpan({ days: '7' }, NOW)).toMatchObject({
      startDay: '2026-03-09',
      endDay: '2026-03-15',
      days: 7,
    });
  });

  it('charges nothing up to 30 days, 0.01 USD from 31, 0.05 USD over 365 cut to the last 365 days', () => {
    expect(billSpan({ days: '30' }, NOW).feeNano).toBe(0n);
    expect(billSpan({ days: '31' }, NOW).feeNano).toBe(usd('0.01'));
    expect(billSpan({ days: '365' }, NOW)).toMatchObject({ days: 365, feeNano: usd('0.01') });
    expect(billSpan({ days: '366' }, NOW)).toEqual({
      startDay: '2025-03-16',
      endDay: '2026-03-15',
      days: 365,
      feeNano: usd('0.05'),
    });
    expect(billSpan({ s: '2020-01-01', e: '2021-12-31' }, NOW)).toMatchObject({
      startDay: '2021-01-01',
      endDay: '2021-12-31',
      feeNano: usd('0.05'),
    });
  });

  it('refuses a malformed date, an impossible day, a reversed range and a bad days count', () => {
    for (const query of [
      { d: '2026-13-01' },
      { d: '2026-02-30' },
      { s: 'yesterday' },
      { s: '2026-03-02', e: '2026-03-01' },
      { days: '0' },
      { days: 'x' },
    ]) {
      expect(() => billSpan(query, NOW)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
  });

  it('names both forms date accepts, a day and a month, and only the day form for start and end', () => {
    for (const date of ['2026-13', 'March', '2026-02-30']) {
      expect(() => billSpan({ date }, NOW)).toThrow('date: must be a date YYYY-MM-DD or a month YYYY-MM');
    }
    expect(() => billSpan({ start: '2026-03' }, NOW)).toThrow(/^start: must be a date YYYY-MM-DD$/);
  });
});
