import { describe, expect, it } from 'vitest';
import {
  decodeSleep,
  decodeSwitch,
  encodeSleep,
  encodeSwitch,
  keyModelField,
  keyStateKeys,
  parseKeyModelField,
  sleepLength,
} from './key-state.js';

describe('the key-state layout', () => {
  it('names every key under the prefix, scoped by owner, key or Level', () => {
    const keys = keyStateKeys('gw:keystate:');
    expect(keys.sleeping(7n)).toBe('gw:keystate:sleep:7');
    expect(keys.failures('12')).toBe('gw:keystate:fail:12');
    expect(keys.sleeps(12n)).toBe('gw:keystate:step:12');
    expect(keys.switched('7')).toBe('gw:keystate:switch:7');
    expect(keys.levelFailures('7', 2)).toBe('gw:keystate:lvlfail:7:2');
    expect(keys.sleepingModels(7n)).toBe('gw:keystate:msleep:7');
    expect(keys.probe('7', 1)).toBe('gw:keystate:probe:7:1');
    expect(keyModelField(12n, 'org/model:v1|x')).toBe('12|org/model:v1|x');
    expect(keys.pairFailures(12n, 'gpt-4o')).toBe('gw:keystate:mfail:12|gpt-4o');
    expect(keys.pairSleeps('12', 'gpt-4o')).toBe('gw:keystate:mstep:12|gpt-4o');
    expect(parseKeyModelField(keyModelField(12n, 'org/model:v1|x'))).toEqual({
      keyId: '12',
      model: 'org/model:v1|x',
    });
    expect([parseKeyModelField('12'), parseKeyModelField('12|'), parseKeyModelField('x|m')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('sleeps 5, 15, then 30 minutes for every later sleep in a row (1 = the first)', () => {
    expect([0, 1, 2, 3, 4, 9].map(sleepLength)).toEqual([
      300_000, 300_000, 900_000, 1_800_000, 1_800_000, 1_800_000,
    ]);
  });

  it('reads back what it writes', () => {
    const sleep = { until: 1_800_000_000_000, failure: 'timeout', step: 2 };
    expect(decodeSleep(encodeSleep(sleep))).toEqual(sleep);
    const switched = { until: 1_800_000_000_000, at: 1_799_999_000_000 };
    expect(decodeSwitch(encodeSwitch(switched))).toEqual(switched);
  });

  it('treats unreadable values as absent and a missing step as the first sleep', () => {
    expect(decodeSleep('not json')).toBeUndefined();
    expect(decodeSleep('{"failure":"auth"}')).toBeUndefined();
    expect(decodeSleep('{"until":5}')).toEqual({ until: 5, failure: '', step: 1 });
    expect(decodeSwitch('[]')).toBeUndefined();
  });
});
