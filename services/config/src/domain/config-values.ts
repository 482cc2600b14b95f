import { AI_ENDPOINTS, parsePricingOverride } from '@gw/kit';
import { invalid } from './invalid.js';
import { applyMapper, type MapperKey } from './mapper-values.js';
import { mergeModelLimits, parseModelLimits } from './model-limits-values.js';
import { MAX_VALUE_LENGTH } from './value-bounds.js';

/**
 * The owner configuration keys and their formats (pure: parse, validate, apply, render).
 * Values are stored as canonical strings, the form the proxies read:
 * - MODEL_MAPPER, LEVEL_MAPPER, MODEL_FAILOVER, SWITCH_OVER: see mapper-values.ts.
 * - RESOURCES: paths of the forwarded-endpoint catalogue, separated by comma and/or whitespace,
 *   stored comma-separated.
 * - MODEL_LIMITS: JSON object `{ model: { rpm, rph, rpd, tpm, tph, tpd } }` (model-limits-values.ts).
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

export const SECRET_KEYS: readonly ConfigKey[] = ['EMAIL_PASS'];
/** How a stored secret is shown; sent back unchanged, it keeps the stored secret. */
export const SECRET_MASK = '********';

const MAX_RESOURCES = 256;
/** RESOURCES names paths of the catalogue of forwarded endpoints. */
const CATALOGUE_PATHS = new Set(AI_ENDPOINTS.map((endpoint) => endpoint.path));

export function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
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
