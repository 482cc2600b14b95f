import {
  AddressList,
  ACCOUNT_BOUNDS,
  AI_RESOURCE_PATHS,
  AppError,
  ErrorCode,
  excerpt,
  formatUsd,
  MAX_PATTERN_WILDCARDS,
  parseMapper,
  splitMapperEntries,
  splitPatternList,
  tooManyWildcards,
  usd,
} from '@gw/kit';
import { LIMIT_FIELDS } from './model.js';

/**
 * The range and form of every value a caller may set on an account (docs/decisions.md §14).
 * Anything outside is 400 naming the field and its range, and a message quotes at most a short
 * excerpt of what was sent.
 */

export const MAX_USD = ACCOUNT_BOUNDS.maxUsd;
export const MAX_AMOUNT_NANO = usd(MAX_USD);
export const MAX_RATE_LIMIT = BigInt(ACCOUNT_BOUNDS.maxRateLimit);
const MAX_MULTIPLIER = ACCOUNT_BOUNDS.maxMultiplier;
const MAX_MAP_ENTRIES = ACCOUNT_BOUNDS.maxMapEntries;
const MODEL_PATTERN = /^[A-Za-z0-9._:/@+*-]{1,256}$/;
const MODEL_NAME = /^[A-Za-z0-9._:/@+-]{1,256}$/;
const RESOURCE_PATHS = new Set(AI_RESOURCE_PATHS);

function invalid(field: string, message: string): never {
  throw new AppError(ErrorCode.InvalidRequest, `${field} ${message}`, { field });
}

/** A few of the offending entries, quoted and shortened. */
export function entriesText(entries: readonly string[]): string {
  const shown = entries.slice(0, 5).map((entry) => `"${excerpt(entry)}"`);
  return entries.length > 5 ? `${shown.join(', ')} and ${entries.length - 5} more` : shown.join(', ');
}

/** An amount in nano-USD within 0…MAX_USD (or min…MAX_USD); negative ones are named as such. */
export function checkAmount(field: string, nano: bigint, minNano = 0n): void {
  const range = `${formatUsd(minNano)} to ${MAX_USD} USD`;
  if (nano < 0n && minNano >= 0n) {
    invalid(field, `must not be negative (${range})`);
  }
  if (nano < minNano || nano > MAX_AMOUNT_NANO) {
    invalid(field, `must be from ${range}`);
  }
}

export function checkRateLimit(field: string, value: bigint): void {
  if (value < 0n) {
    invalid(field, `must not be negative (0 to ${MAX_RATE_LIMIT}, 0: no limit of its own)`);
  }
  if (value > MAX_RATE_LIMIT) {
    invalid(field, `must be from 0 to ${MAX_RATE_LIMIT}`);
  }
}

export function checkMultiplier(field: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_MULTIPLIER) {
    invalid(field, `must be a number above 0 and at most ${MAX_MULTIPLIER}`);
  }
}

export function checkInteger(field: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    invalid(field, `must be an integer from ${min} to ${max}`);
  }
}

/** Patterns with more `*` than one may hold (docs/decisions.md §14). */
function checkWildcards(field: string, patterns: readonly string[]): void {
  const bad = patterns.filter(tooManyWildcards);
  if (bad.length > 0) {
    invalid(field, `holds patterns with more than ${MAX_PATTERN_WILDCARDS} "*": ${entriesText(bad)}`);
  }
}

/** AllowModels: model patterns (`*` wildcards), space or comma separated; `*` alone and `-x` are operations. */
export function checkAllowModels(text: string): void {
  const bad = splitPatternList(text).filter(
    (entry) => entry !== '*' && !MODEL_PATTERN.test(entry.startsWith('-') ? entry.slice(1) : entry),
  );
  if (bad.length > 0) {
    invalid('AllowModels', `holds entries that are not model patterns: ${entriesText(bad)}`);
  }
  checkWildcards('AllowModels', splitPatternList(text));
}

/** AllowLevels: Levels 0-9. */
export function checkAllowLevels(text: string): void {
  const bad = splitPatternList(text).filter((entry) => !/^\d$/.test(entry));
  if (bad.length > 0) {
    invalid('AllowLevels', `holds entries that are not Levels from 0 to 9: ${entriesText(bad)}`);
  }
}

/** Resources: paths of the forwarded-endpoint catalogue. */
export function checkResources(text: string): void {
  const bad = splitPatternList(text).filter((entry) => !RESOURCE_PATHS.has(entry));
  if (bad.length > 0) {
    invalid(
      'Resources',
      `holds entries that are not forwarded endpoints: ${entriesText(bad)} (one of ${AI_RESOURCE_PATHS.join(', ')})`,
    );
  }
}

/** AllowIPs: addresses or CIDR ranges. */
export function checkAllowIps(text: string): void {
  const list = AddressList.parse(text);
  if ('invalid' in list) {
    invalid('AllowIPs', `holds entries that are not addresses or CIDR ranges: ${entriesText(list.invalid)}`);
  }
}

/** ModelMapper: `<pattern>=<model>` entries. */
export function checkModelMapper(text: string): void {
  const entries = splitMapperEntries(text);
  if (entries.length > MAX_MAP_ENTRIES) {
    invalid('ModelMapper', `has more than ${MAX_MAP_ENTRIES} entries`);
  }
  const pairs = parseMapper(text);
  const bad = entries.filter((entry) => {
    const at = entry.indexOf('=');
    const pattern = entry.slice(0, Math.max(at, 0)).trim();
    const target = entry.slice(at + 1).trim();
    return at <= 0 || !MODEL_PATTERN.test(pattern) || !MODEL_NAME.test(target);
  });
  if (bad.length > 0 || pairs.length !== entries.length) {
    invalid('ModelMapper', `holds entries that are not <pattern>=<model>: ${entriesText(bad)}`);
  }
  checkWildcards(
    'ModelMapper',
    pairs.map(([pattern]) => pattern),
  );
}

/** ModelLimits: `{ <pattern>: { rpm…tpd: 0…MAX_RATE_LIMIT } }`. */
export function checkModelLimits(limits: Record<string, unknown>): void {
  const models = Object.entries(limits);
  if (models.length > MAX_MAP_ENTRIES) {
    invalid('ModelLimits', `has more than ${MAX_MAP_ENTRIES} models`);
  }
  checkWildcards(
    'ModelLimits',
    models.map(([model]) => model),
  );
  for (const [model, value] of models) {
    if (!MODEL_PATTERN.test(model)) {
      invalid('ModelLimits', `key "${excerpt(model)}" is not a model pattern`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      invalid(`ModelLimits.${model}`, `must be an object of ${LIMIT_FIELDS.join(', ')}`);
    }
    for (const [name, amount] of Object.entries(value as Record<string, unknown>)) {
      if (!(LIMIT_FIELDS as readonly string[]).includes(name)) {
        invalid(`ModelLimits.${model}`, `key "${excerpt(name)}" is not one of ${LIMIT_FIELDS.join(', ')}`);
      }
      if (
        typeof amount !== 'number' ||
        !Number.isSafeInteger(amount) ||
        amount < 0 ||
        BigInt(amount) > MAX_RATE_LIMIT
      ) {
        invalid(`ModelLimits.${model}.${name}`, `must be an integer from 0 to ${MAX_RATE_LIMIT}`);
      }
    }
  }
}
