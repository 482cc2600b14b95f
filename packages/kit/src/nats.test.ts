import { describe, expect, it } from 'vitest';
import { natsStatusLevel } from './nats.js';

describe('natsStatusLevel', () => {
  it('keeps the routine ping timer and reconnect attempts at debug, and a lost connection a warning', () => {
    expect(natsStatusLevel('pingTimer')).toBe('debug');
    expect(natsStatusLevel('reconnecting')).toBe('debug');
    expect(natsStatusLevel('update')).toBe('debug');
    expect(natsStatusLevel('reconnect')).toBe('info');
    expect(natsStatusLevel('disconnect')).toBe('warn');
    expect(natsStatusLevel('error')).toBe('warn');
  });
});
