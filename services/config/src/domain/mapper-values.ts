import { MAX_PATTERN_WILDCARDS, parseMapper, splitMapperEntries, tooManyWildcards } from '@gw/kit';
import { invalid } from './invalid.js';
import { MAX_VALUE_LENGTH, MODEL_NAME, MODEL_PATTERN } from './value-bounds.js';

/**
 * The mapper keys (MODEL_MAPPER `pattern=model,...`, LEVEL_MAPPER `pattern=level,...`,
 * MODEL_FAILOVER `primary=b1|b2,...`, SWITCH_OVER `level=level,...`): a change is a list of
 * operations on the stored mapping (`a=b` adds or replaces a, `-a` removes a); entries trimmed.
 */
export const MAPPER_KEYS = ['MODEL_MAPPER', 'MODEL_FAILOVER', 'LEVEL_MAPPER', 'SWITCH_OVER'] as const;
export type MapperKey = (typeof MAPPER_KEYS)[number];

const MAX_MAPPER_ENTRIES = 1024;
const MAX_FAILOVER_BACKUPS = 16;
const MIN_LEVEL = 0;
const MAX_LEVEL = 9;

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
  if (tooManyWildcards(pattern)) {
    invalid(field, `"${pattern.slice(0, 64)}" has more than ${MAX_PATTERN_WILDCARDS} "*"`);
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

export function applyMapper(key: MapperKey, stored: string, change: string): string {
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
