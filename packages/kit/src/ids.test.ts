import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from './ids.js';

const ID = /^evt_([0-9a-v]{10})[A-Za-z0-9_-]{12}$/;

/** The millisecond an id names, read back from its base-32 digits. */
function msOf(id: string): number {
  return parseInt(ID.exec(id)?.[1] ?? '', 32);
}

describe('newId', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('names the millisecond it was made in, so ids sort by time whatever their random part', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // Around each base-32 digit's rollover, and far apart.
    const times = [
      0,
      31,
      32,
      1023,
      1024,
      Date.UTC(2026, 11, 7),
      Date.UTC(2026, 11, 7) + 1,
      Date.UTC(3000, 0, 1),
    ];
    const made = times.flatMap((ms) => {
      vi.setSystemTime(ms);
      return Array.from({ length: 20 }, () => ({ ms, id: newId('event') }));
    });
    for (const { ms, id } of made) {
      expect(msOf(id)).toBe(ms);
    }
    const byId = [...made].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(byId.map(({ ms }) => ms)).toEqual(made.map(({ ms }) => ms));
  });

  it('makes distinct ids of one shape within one millisecond', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 11, 7));
    const ids = Array.from({ length: 10_000 }, () => newId('event'));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => ID.test(id))).toBe(true);
    expect(newId('request')).toMatch(/^req_[0-9a-v]{10}[A-Za-z0-9_-]{12}$/);
  });
});
