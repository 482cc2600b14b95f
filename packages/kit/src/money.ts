/** Money is integer nano-USD (bigint) inside the system and decimal USD at the public edge. */
export const NANO_PER_USD = 1_000_000_000n;
const FRACTION_DIGITS = 9;

export function usd(whole: number | string): bigint {
  return parseUsd(whole);
}

/**
 * Parses a decimal USD amount exactly (no float arithmetic). Accepts a plain decimal string or a
 * finite JS number; more than 9 fraction digits, exponents beyond what a number prints, NaN and
 * Infinity are refused so that rounding never creates or destroys money.
 */
export function parseUsd(input: string | number): bigint {
  const text = typeof input === 'number' ? numberToPlain(input) : input.trim();
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) {
    throw new RangeError(`not a decimal amount: ${String(input)}`);
  }
  const [, sign, whole = '0', fraction = ''] = match;
  if (fraction.length > FRACTION_DIGITS) {
    throw new RangeError(`more than ${FRACTION_DIGITS} decimal places: ${String(input)}`);
  }
  const nano = BigInt(whole) * NANO_PER_USD + BigInt(fraction.padEnd(FRACTION_DIGITS, '0'));
  return sign ? -nano : nano;
}

/** Writes a finite number as a plain decimal string, expanding exponent notation exactly. */
function numberToPlain(value: number): string {
  if (!Number.isFinite(value)) {
    throw new RangeError(`not a finite amount: ${value}`);
  }
  const [mantissa = '', exponent] = String(value).split('e');
  if (exponent === undefined) {
    return mantissa;
  }
  const sign = mantissa.startsWith('-') ? '-' : '';
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) {
    return `${sign}0.${'0'.repeat(-point)}${digits}`;
  }
  if (point >= digits.length) {
    return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  }
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Renders nano-USD as a decimal number of USD for JSON responses (exact up to 2^53 nano). */
export function nanoToUsd(nano: bigint): number {
  return Number(formatUsd(nano));
}

/** Renders nano-USD as a decimal string with no trailing zeros ("-1.5", "0.000000001"). */
export function formatUsd(nano: bigint): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const whole = abs / NANO_PER_USD;
  const fraction = (abs % NANO_PER_USD).toString().padStart(FRACTION_DIGITS, '0').replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : `${whole}`;
  return negative ? `-${text}` : text;
}
