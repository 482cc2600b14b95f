import { describe, expect, it } from 'vitest';
import { formatUsd, NANO_PER_USD, nanoToUsd, parseUsd, usd } from './money.js';

describe('parseUsd', () => {
  it.each<[string | number, bigint]>([
    ['2', 2_000_000_000n],
    [2, 2_000_000_000n],
    ['0', 0n],
    [0, 0n],
    ['0.1', 100_000_000n],
    [0.3, 300_000_000n],
    [0.1, 100_000_000n],
    [0.7, 700_000_000n],
    [1.1, 1_100_000_000n],
    ['1.999999999', 1_999_999_999n],
    [1.999999999, 1_999_999_999n],
    ['0.000000001', 1n],
    ['007.50', 7_500_000_000n],
    [' 2.5 ', 2_500_000_000n],
    ['123456789012345678901234567890', 123456789012345678901234567890n * NANO_PER_USD],
  ])('reads %j as %s nano-USD', (input, expected) => {
    expect(parseUsd(input)).toBe(expected);
  });

  it('reads the decimal a float prints, not its binary approximation', () => {
    // 0.3 is 0.299999999999999988897769753748... in binary; the amount meant is 0.3.
    expect(parseUsd(0.3)).toBe(300_000_000n);
    expect(parseUsd(0.3) * 3n).toBe(parseUsd(0.9));
  });

  it('refuses 0.1 + 0.2 rather than rounding its 17 decimal places', () => {
    expect(() => parseUsd(0.1 + 0.2)).toThrow(RangeError);
  });

  it.each<[string | number, bigint]>([
    ['-1.5', -1_500_000_000n],
    [-1.5, -1_500_000_000n],
    ['-0.000000001', -1n],
    [-2, -2_000_000_000n],
    [-0, 0n],
  ])('reads the negative amount %j as %s', (input, expected) => {
    expect(parseUsd(input)).toBe(expected);
  });

  it.each<[number, bigint]>([
    [1e-7, 100n],
    [1e-9, 1n],
    [-1e-7, -100n],
    [1.5e-7, 150n],
    [2e3, 2000n * NANO_PER_USD],
    [1e21, 10n ** 21n * NANO_PER_USD],
    [1.5e21, 15n * 10n ** 20n * NANO_PER_USD],
  ])('expands the number %s from exponent form exactly to %s', (input, expected) => {
    expect(parseUsd(input)).toBe(expected);
  });

  it.each(['0.0000000001', '1.0000000001', 1.0000000001, 1e-10, 1.5e-9])(
    'refuses %j for having more than 9 decimal places',
    (input) => {
      expect(() => parseUsd(input)).toThrow(/more than 9 decimal places/);
    },
  );

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number('1e400')])(
    'refuses the number %s',
    (input) => {
      expect(() => parseUsd(input)).toThrow(/not a finite amount/);
    },
  );

  it.each([
    'abc',
    '1e400',
    '2e3',
    '',
    ' ',
    '-',
    '+1',
    '1.',
    '.5',
    '1,5',
    '1.2.3',
    '--1',
    '0x10',
    'NaN',
    'Infinity',
    '1 000',
  ])('refuses the text %j', (input) => {
    expect(() => parseUsd(input)).toThrow(/not a decimal amount/);
  });

  it('throws RangeError for every refusal', () => {
    expect(() => parseUsd('abc')).toThrow(RangeError);
    expect(() => parseUsd(Number.NaN)).toThrow(RangeError);
    expect(() => parseUsd('0.0000000001')).toThrow(RangeError);
  });
});

describe('usd', () => {
  it('reads whole and fractional USD from numbers and text', () => {
    expect(usd(2)).toBe(2_000_000_000n);
    expect(usd('2.25')).toBe(2_250_000_000n);
    expect(usd(0.3)).toBe(300_000_000n);
  });

  it('reads numbers JS prints in exponent form as parseUsd does', () => {
    expect(usd(1e-7)).toBe(100n);
    expect(usd(1e21)).toBe(parseUsd(1e21));
  });

  it('refuses what parseUsd refuses', () => {
    expect(() => usd(Number.NaN)).toThrow(RangeError);
    expect(() => usd('1e400')).toThrow(RangeError);
  });
});

describe('formatUsd', () => {
  it.each<[bigint, string]>([
    [0n, '0'],
    [1n, '0.000000001'],
    [-1n, '-0.000000001'],
    [100_000_000n, '0.1'],
    [1_500_000_000n, '1.5'],
    [-1_500_000_000n, '-1.5'],
    [2_000_000_000n, '2'],
    [-2_000_000_000n, '-2'],
    [1_999_999_999n, '1.999999999'],
    [10_000_000_010n, '10.00000001'],
    [123456789012345678901234567890n, '123456789012345678901.23456789'],
  ])('writes %s nano-USD as %j', (nano, expected) => {
    expect(formatUsd(nano)).toBe(expected);
  });
});

describe('nanoToUsd', () => {
  it.each<[bigint, number]>([
    [0n, 0],
    [1n, 0.000000001],
    [1_500_000_000n, 1.5],
    [-1_500_000_000n, -1.5],
    [300_000_000n, 0.3],
    [2_000_000_000n, 2],
    [123_456_789_000n, 123.456789],
  ])('turns %s nano-USD into the number %s', (nano, expected) => {
    expect(nanoToUsd(nano)).toBe(expected);
  });
});

describe('parseUsd and formatUsd', () => {
  const samples: bigint[] = [];
  for (let exponent = 0n; exponent <= 30n; exponent += 1n) {
    const power = 10n ** exponent;
    samples.push(power, power - 1n, power + 1n, power * 7n + 3n);
  }
  samples.push(1_234_567_891n, 999_999_999n, 1_000_000_001n, 2n ** 63n - 1n);

  it('round-trip every sample amount, positive and negative', () => {
    for (const nano of samples) {
      for (const value of [nano, -nano]) {
        expect(parseUsd(formatUsd(value)), formatUsd(value)).toBe(value);
      }
    }
  });

  it('round-trip through nanoToUsd for amounts a number holds exactly', () => {
    for (const nano of [0n, 1n, 10n, 123_456_789n, 1_000_000_000n, 42_500_000_000n, -7_000_000_001n]) {
      expect(parseUsd(nanoToUsd(nano)), String(nano)).toBe(nano);
    }
  });
});
