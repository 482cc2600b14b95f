import { CompiledOnce } from '../compiled-once.js';

/**
 * Exact decimal arithmetic for prices: a price is a JSON number, read as the decimal it is written
 * as (its shortest round-trip form, `0.1` is one tenth, never 0.1000000000000000055…), and kept as
 * `units / 10^scale` with bigint units. Sums and products of such values are exact, so a cost is
 * rounded once, at the end.
 */
export interface Exact {
  readonly units: bigint;
  readonly scale: number;
}

export const ZERO: Exact = { units: 0n, scale: 0 };

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * Prices, Rates and Factors are a small set of numbers, read again for every call priced (twice
 * per AI call in the proxy), and reading one takes a string, a regular expression and a bigint:
 * each is read once.
 */
const decimals = new CompiledOnce<Exact, number>(readDecimal);

/** A finite non-negative number as the exact decimal it prints as. */
export function exact(value: number): Exact {
  return decimals.get(value);
}

function readDecimal(value: number): Exact {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`not a finite non-negative price: ${value}`);
  }
  const match = DECIMAL.exec(String(value));
  if (!match) {
    throw new RangeError(`unreadable price: ${value}`);
  }
  const [, whole, fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const units = BigInt(`${whole ?? ''}${fraction}`);
  return scale >= 0 ? { units, scale } : { units: units * tenTo(-scale), scale: 0 };
}

/** A whole count (tokens, images, calls) as an exact value. */
export function count(value: bigint | number): Exact {
  return { units: BigInt(value), scale: 0 };
}

/**
 * Powers of ten as bigints, made once: a bigint power costs more than the rest of a sum, and a
 * call's price adds about twenty values, most of them zero (token classes it did not use).
 */
const POWERS_OF_TEN = new Map<number, bigint>();

function tenTo(digits: number): bigint {
  let power = POWERS_OF_TEN.get(digits);
  if (power === undefined) {
    power = 10n ** BigInt(digits);
    POWERS_OF_TEN.set(digits, power);
  }
  return power;
}

function rescale(value: Exact, scale: number): bigint {
  return scale === value.scale ? value.units : value.units * tenTo(scale - value.scale);
}

export function add(a: Exact, b: Exact): Exact {
  // Adding zero keeps the other value as it is (its scale included: the value is the same).
  if (b.units === 0n) {
    return a;
  }
  if (a.units === 0n) {
    return b;
  }
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function mul(a: Exact, b: Exact): Exact {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** `value / 10^digits`: per-million prices divide by 10^6. */
export function shift(value: Exact, digits: number): Exact {
  return { units: value.units, scale: value.scale + digits };
}

/** USD → integer nano-USD, rounded half up (values are never negative). */
export function toNanoHalfUp(usd: Exact): bigint {
  const scale = usd.scale - 9;
  if (scale <= 0) {
    return usd.units * tenTo(-scale);
  }
  const divisor = tenTo(scale);
  return (usd.units * 2n + divisor) / (divisor * 2n);
}
