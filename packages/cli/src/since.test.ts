import { describe, expect, it } from 'vitest';
import { parseSince } from './since.js';

const now = new Date('2026-01-02T03:00:00.000Z');

describe('parseSince', () => {
  it('reads a span back from now', () => {
    expect(parseSince('30s', now)?.toISOString()).toBe('2026-01-02T02:59:30.000Z');
    expect(parseSince('15m', now)?.toISOString()).toBe('2026-01-02T02:45:00.000Z');
    expect(parseSince('2h', now)?.toISOString()).toBe('2026-01-02T01:00:00.000Z');
    expect(parseSince('1d', now)?.toISOString()).toBe('2026-01-01T03:00:00.000Z');
  });

  it('reads an ISO 8601 time', () => {
    expect(parseSince('2026-01-01T12:00:00Z', now)?.toISOString()).toBe('2026-01-01T12:00:00.000Z');
  });

  it('refuses anything else', () => {
    for (const text of ['yesterday', '15', '15w', '2026-13-45', '']) {
      expect(parseSince(text, now), text).toBeUndefined();
    }
  });
});
