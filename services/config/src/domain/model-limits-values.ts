import {
  LIMIT_NAMES,
  MAX_PATTERN_WILDCARDS,
  tooManyWildcards,
  type LimitName,
  type ModelLimitsObject,
} from '@gw/kit';
import { invalid } from './invalid.js';
import { MAX_VALUE_LENGTH, MODEL_PATTERN } from './value-bounds.js';

const MAX_LIMIT_MODELS = 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** MODEL_LIMITS: `{ model: { rpm..tpd: non-negative integer } }`, nothing else. */
export function parseModelLimits(text: string): ModelLimitsObject {
  if (text.length > MAX_VALUE_LENGTH) {
    invalid('MODEL_LIMITS', `is longer than ${MAX_VALUE_LENGTH} characters (128 KB)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    invalid('MODEL_LIMITS', 'must be a JSON object');
  }
  if (!isPlainObject(raw)) {
    invalid('MODEL_LIMITS', 'must be an object of model to limits');
  }
  const models = Object.entries(raw);
  if (models.length > MAX_LIMIT_MODELS) {
    invalid('MODEL_LIMITS', `at most ${MAX_LIMIT_MODELS} models`);
  }
  const limits: ModelLimitsObject = {};
  for (const [model, value] of models) {
    if (!MODEL_PATTERN.test(model)) {
      invalid(`MODEL_LIMITS.${model.slice(0, 64)}`, 'is not a model pattern');
    }
    if (tooManyWildcards(model)) {
      invalid(`MODEL_LIMITS.${model.slice(0, 64)}`, `has more than ${MAX_PATTERN_WILDCARDS} "*"`);
    }
    if (!isPlainObject(value)) {
      invalid(`MODEL_LIMITS.${model}`, 'must be an object of rpm, rph, rpd, tpm, tph, tpd');
    }
    const entry: ModelLimitsObject[string] = {};
    for (const [name, amount] of Object.entries(value)) {
      if (!(LIMIT_NAMES as readonly string[]).includes(name)) {
        invalid(`MODEL_LIMITS.${model}.${name.slice(0, 64)}`, `is not one of ${LIMIT_NAMES.join(', ')}`);
      }
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) {
        invalid(`MODEL_LIMITS.${model}.${name}`, 'must be a non-negative integer');
      }
      entry[name as LimitName] = amount;
    }
    limits[model] = entry;
  }
  return limits;
}

/** POST /x-conf ModelLimits: `*` or `=` clears, `-m1,-m2` removes, an object merges per model. */
export function mergeModelLimits(stored: string, change: string): string {
  const text = change.trim();
  if (text === '*' || text === '=') {
    return '';
  }
  const current = stored === '' ? {} : parseModelLimits(stored);
  const next = new Map(Object.entries(current));
  if (text.startsWith('-')) {
    for (const entry of text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      if (!entry.startsWith('-') || entry.length < 2) {
        invalid('MODEL_LIMITS', `"${entry.slice(0, 64)}" is not a -<model> removal`);
      }
      next.delete(entry.slice(1).trim());
    }
  } else {
    for (const [model, limits] of Object.entries(parseModelLimits(text))) {
      next.set(model, { ...next.get(model), ...limits });
    }
  }
  if (next.size > MAX_LIMIT_MODELS) {
    invalid('MODEL_LIMITS', `at most ${MAX_LIMIT_MODELS} models`);
  }
  return next.size === 0 ? '' : JSON.stringify(Object.fromEntries(next));
}
