import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AccessLogSwitch } from './access-log-switch.js';

describe('AccessLogSwitch', () => {
  it('is on until settings turn it off, and an older answer never turns it back', () => {
    const accessLog = new AccessLogSwitch(pino({ level: 'silent' }));
    expect(accessLog.enabled).toBe(true);
    accessLog.apply(3n, false);
    expect(accessLog.enabled).toBe(false);
    accessLog.apply(2n, true);
    expect(accessLog.enabled).toBe(false);
    accessLog.apply(3n, false);
    accessLog.apply(4n, true);
    expect(accessLog.enabled).toBe(true);
  });
});
