import {
  AI_ENDPOINTS,
  LIMIT_NAMES,
  parseMapper,
  parsePricingOverride,
  splitMapperEntries,
  type LimitName,
  type ModelLimitsObject,
} from '@gw/kit';
import { invalid } from './invalid.js';

/**
 * The owner configuration keys and their formats (pure: parse, validate, apply, render).
 * Values are stored as canonical strings, the form the proxies read:
 * - MODEL_MAPPER `pattern=model,...`, LEVEL_MAPPER `pattern=level,...`,
 *   MODEL_FAILOVER `primary=b1|b2,...`, SWITCH_OVER `level=level,...`: a change is a list of
 *   operations on the stored mapping (`a=b` adds or replaces a, `-a` removes a); entries trimmed.
 * - RESOURCES: paths of the forwarded-endpoint catalogue, separated by comma and/or whitespace,
 *   stored comma-separated.
 * - MODEL_LIMITS: JSON object `{ model: { rpm, rph, rpd, tpm, tph, tpd } }`.
 * - PRICING: JSON (see pricing.ts), stored re-serialised.
 * - SVC_MAIL, EMAIL_*: strings; EMAIL_PASS is sealed by the caller before storage.
 * An empty value restores the key's default. Every refusal names the offending field.
 */
export const CONFIG_KEYS = [
  'MODEL_MAPPER',
  'MODEL_FAILOVER',
  'LEVEL_MAPPER',
  'SWITCH_OVER',
  'RESOURCES',
  'MODEL_LIMITS',
  'PRICING',
  'SVC_MAIL',
  'EMAIL_SMTP',
  'EMAIL_PORT',
  'EMAIL_AUTH',
  'EMAIL_PASS',
  'EMAIL_TLS',
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export const MAPPER_KEYS = ['MODEL_MAPPER', 'MODEL_FAILOVER', 'LEVEL_MAPPER', 'SWITCH_OVER'] as const;
type MapperKey = (typeof MAPPER_KEYS)[number];
export const SECRET_KEYS: readonly ConfigKey[] = ['EMAIL_PASS'];
/** How a stored secret is shown; sent back unchanged, it keeps the stored secret. */
export const SECRET_MASK = '********';

/** Every value, as the edge bounds it too (PRICING: the 128 KB of the spec). */
const MAX_VALUE_LENGTH = 128 * 1024;
const MAX_MAPPER_ENTRIES = 1024;
const MAX_LIMIT_MODELS = 1024;
const MAX_RESOURCES = 256;
const MAX_FAILOVER_BACKUPS = 16;
const MIN_LEVEL = 0;
const MAX_LEVEL = 9;
/** Model names and patterns: printable, no separators of the formats. */
const MODEL_PATTERN = /^[A-Za-z0-9._:/@+*?[\]-]{1,256}$/;
const MODEL_NAME = /^[A-Za-z0-9._:/@+-]{1,256}$/;
/** RESOURCES names paths of the catalogue of forwarded endpoints. */
const CATALOGUE_PATHS = new Set(AI_ENDPOINTS.map((endpoint) => endpoint.path));

export function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
}

type MapperOp = { kind: 'set'; key: string; value: string } | { kind: 'remove'; key: string };

function level(field: string, text: string): string {
  if (!/^\d{1,2}$/.test(text) || Number(text) < MIN_LEVEL || Number(text) > MAX_LEVEL) {
    invalid(field, `"${text}" is not a level from ${MIN_LEVEL} to ${MAX_LEVEL}`);
  }
  return String(Number(text));
}

function checkPattern(field: string, key: MapperKey, pattern: string): string {
  if (key === 'SWITCH_OVER') {
    return level(field, pattern);
  }
  if (!MODEL_PATTERN.test(pattern)) {
    invalid(field, `"${pattern.slice(0, 64)}" is not a model pattern`);
  }
  return pattern;
}

function checkTarget(field: string, key: MapperKey, pattern: string, target: string): string {
  switch (key) {
    case 'MODEL_MAPPER':
      if (!MODEL_NAME.test(target)) {
        invalid(field, `"${target.slice(0, 64)}" is not a model name`);
      }
      return target;
    case 'LEVEL_MAPPER':
    case 'SWITCH_OVER':
      return level(field, target);
    case 'MODEL_FAILOVER': {
      const backups = target.split('|').map((backup) => backup.trim());
      if (backups.length > MAX_FAILOVER_BACKUPS) {
        invalid(field, `at most ${MAX_FAILOVER_BACKUPS} backups`);
      }
      for (const backup of backups) {
        if (!MODEL_NAME.test(backup)) {
          invalid(field, `"${backup.slice(0, 64)}" is not a model name`);
        }
        if (backup === pattern) {
          invalid(field, `"${pattern}" cannot be its own backup`);
        }
      }
      return backups.join('|');
    }
  }
}

/** Parses `a=b,-c` into operations; `field` names the key in errors. */
export function parseMapperOps(key: MapperKey, text: string): MapperOp[] {
  if (text.length > MAX_VALUE_LENGTH) {
    invalid(key, `is longer than ${MAX_VALUE_LENGTH} characters (128 KB)`);
  }
  const entries = splitMapperEntries(text);
  if (entries.length > MAX_MAPPER_ENTRIES) {
    invalid(key, `at most ${MAX_MAPPER_ENTRIES} entries`);
  }
  return entries.map((entry): MapperOp => {
    if (entry.startsWith('-') && !entry.includes('=')) {
      const pattern = entry.slice(1).trim();
      return { kind: 'remove', key: checkPattern(`${key}.${pattern}`, key, pattern) };
    }
    const at = entry.indexOf('=');
    if (at <= 0) {
      invalid(key, `"${entry.slice(0, 64)}" is not a <pattern>=<value> pair`);
    }
    const pattern = entry.slice(0, at).trim();
    const target = entry.slice(at + 1).trim();
    const field = `${key}.${pattern}`;
    if (target === '') {
      invalid(field, 'has no value');
    }
    const checked = checkPattern(field, key, pattern);
    return { kind: 'set', key: checked, value: checkTarget(field, key, checked, target) };
  });
}

/** The stored canonical string as a mapping (stored values are always valid). */
export function mapperEntries(text: string): Map<string, string> {
  return new Map(parseMapper(text));
}

function serializeMapper(map: Map<string, string>): string {
  return [...map].map(([pattern, target]) => `${pattern}=${target}`).join(',');
}

/** A SWITCH_OVER chain must end: `1=2,2=1` (or any loop) is refused. */
export function findSwitchOverCycle(map: Map<string, string>): string | undefined {
  for (const start of map.keys()) {
    const seen = new Set<string>([start]);
    let next = map.get(start);
    while (next !== undefined) {
      if (seen.has(next)) {
        return [...seen, next].join('→');
      }
      seen.add(next);
      next = map.get(next);
    }
  }
  return undefined;
}

function applyMapper(key: MapperKey, stored: string, change: string): string {
  const map = mapperEntries(stored);
  for (const op of parseMapperOps(key, change)) {
    if (op.kind === 'set') {
      map.set(op.key, op.value);
    } else {
      map.delete(op.key);
    }
  }
  if (map.size > MAX_MAPPER_ENTRIES) {
    invalid(key, `at most ${MAX_MAPPER_ENTRIES} entries`);
  }
  if (key === 'SWITCH_OVER') {
    const cycle = findSwitchOverCycle(map);
    if (cycle) {
      invalid(key, `levels form a cycle (${cycle})`);
    }
  }
  return serializeMapper(map);
}

export function parseResources(text: string): string[] {
  const paths = [...new Set(text.split(/[\s,]+/).filter((path) => path !== ''))];
  if (paths.length > MAX_RESOURCES) {
    invalid('RESOURCES', `at most ${MAX_RESOURCES} paths`);
  }
  for (const path of paths) {
    if (!CATALOGUE_PATHS.has(path)) {
      invalid(
        `RESOURCES.${path.slice(0, 64)}`,
        `is not a forwarded endpoint (one of ${[...CATALOGUE_PATHS].join(', ')})`,
      );
    }
  }
  return paths;
}

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
function mergeModelLimits(stored: string, change: string): string {
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

function checkLine(key: ConfigKey, text: string, max: number): string {
  if (text.length > max || /\p{Cc}/u.test(text)) {
    invalid(key, `must be at most ${max} characters without control characters`);
  }
  return text;
}

type ScalarKey = Exclude<ConfigKey, MapperKey | 'RESOURCES' | 'MODEL_LIMITS' | 'PRICING'>;

function scalar(key: ScalarKey, raw: string): string {
  const text = raw.trim();
  switch (key) {
    case 'SVC_MAIL':
      if (!/^[^\s@,;<>"]{1,64}@[A-Za-z0-9.-]{1,253}$/.test(text)) {
        invalid(key, 'must be an e-mail address');
      }
      return text;
    case 'EMAIL_SMTP':
      if (!/^[A-Za-z0-9.-]{1,253}$/.test(text) && !/^\[[0-9a-fA-F:.]+\]$/.test(text)) {
        invalid(key, 'must be a host name or address');
      }
      return text.toLowerCase();
    case 'EMAIL_PORT':
      if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
        invalid(key, 'must be a port from 1 to 65535');
      }
      return String(Number(text));
    case 'EMAIL_TLS': {
      const lower = text.toLowerCase();
      if (!['true', 'false', '1', '0'].includes(lower)) {
        invalid(key, 'must be "true" or "false"');
      }
      return lower === 'true' || lower === '1' ? 'true' : 'false';
    }
    case 'EMAIL_AUTH':
      return checkLine(key, text, 320);
    case 'EMAIL_PASS':
      return checkLine(key, raw, 1024);
  }
}

export interface ApplyOptions {
  /** POST /x-conf semantics for MODEL_LIMITS (clear, remove, merge). */
  mergeLimits: boolean;
}

/**
 * Validates every change against the stored values and returns the new stored values of the
 * changed keys (undefined: restore the default). Nothing is returned when anything is invalid:
 * the first problem throws, naming its field, and the caller stores nothing.
 */
export function applyConfigChanges(
  stored: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string>>,
  options: ApplyOptions,
): Record<string, string | undefined> {
  const keys = Object.keys(changes);
  if (keys.length === 0) {
    invalid('configs', 'no configuration key given');
  }
  const next: Record<string, string | undefined> = {};
  for (const key of keys) {
    if (!isConfigKey(key)) {
      invalid(key.slice(0, 64), `is not a configuration key (allowed: ${CONFIG_KEYS.join(', ')})`);
    }
    const value = changes[key] ?? '';
    if (SECRET_KEYS.includes(key) && value === SECRET_MASK) {
      // The masked secret GET /x-config showed, sent back: the stored one stays.
      continue;
    }
    if (value.length > MAX_VALUE_LENGTH && key !== 'PRICING') {
      invalid(key, `is longer than ${MAX_VALUE_LENGTH} characters (128 KB)`);
    }
    let result: string;
    switch (key) {
      case 'MODEL_MAPPER':
      case 'MODEL_FAILOVER':
      case 'LEVEL_MAPPER':
      case 'SWITCH_OVER':
        result = applyMapper(key, stored[key] ?? '', value);
        break;
      case 'RESOURCES':
        result = parseResources(value).join(',');
        break;
      case 'MODEL_LIMITS':
        result = options.mergeLimits
          ? mergeModelLimits(stored[key] ?? '', value)
          : value.trim() === ''
            ? ''
            : JSON.stringify(parseModelLimits(value));
        break;
      case 'PRICING':
        result = value.trim() === '' ? '' : JSON.stringify(parsePricingOverride(value));
        break;
      case 'SVC_MAIL':
      case 'EMAIL_SMTP':
      case 'EMAIL_PORT':
      case 'EMAIL_AUTH':
      case 'EMAIL_PASS':
      case 'EMAIL_TLS':
        result = value.trim() === '' ? '' : scalar(key, value);
        break;
    }
    next[key] = result === '' ? undefined : result;
  }
  return next;
}
