/**
 * Model patterns and the mapper grammar, one definition for every service.
 *
 * A pattern is a model name with `*` wildcards (`gpt-4o*`, `*`). Where several patterns match a
 * name, the most specific wins: an exact name first, then the pattern with the most literal
 * characters, then the one written first.
 *
 * Mapper text (MODEL_MAPPER, LEVEL_MAPPER, MODEL_FAILOVER, SWITCH_OVER, an account's
 * ModelMapper) is `<pattern>=<value>` entries separated by commas or line breaks; entries and
 * both sides of `=` are trimmed.
 */

/** Entries of mapper text, trimmed, empty ones dropped (their syntax is checked by the caller). */
export function splitMapperEntries(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Mapper text as `[pattern, value]` pairs; an entry without a pattern or value is skipped. */
export function parseMapper(text: string): Array<[pattern: string, value: string]> {
  const pairs: Array<[string, string]> = [];
  for (const entry of splitMapperEntries(text)) {
    const at = entry.indexOf('=');
    const pattern = entry.slice(0, Math.max(at, 0)).trim();
    const value = entry.slice(at + 1).trim();
    if (at > 0 && pattern && value) {
      pairs.push([pattern, value]);
    }
  }
  return pairs;
}

/** Pairs written back in the grammar (the canonical form: `pattern=value` joined by commas). */
export function formatMapper(pairs: Iterable<readonly [pattern: string, value: string]>): string {
  return [...pairs].map(([pattern, value]) => `${pattern}=${value}`).join(',');
}

/** A list of patterns (AllowModels): separated by spaces or commas. */
export function splitPatternList(text: string): string[] {
  return text.split(/[\s,]+/).filter((item) => item !== '');
}

/**
 * At most this many `*` in one pattern (docs/decisions.md §14): checked where a pattern is
 * accepted. Matching is linear whatever the count; the bound keeps each lookup small.
 */
export const MAX_PATTERN_WILDCARDS = 8;

export function tooManyWildcards(pattern: string): boolean {
  return wildcardsOf(pattern) > MAX_PATTERN_WILDCARDS;
}

function wildcardsOf(pattern: string): number {
  let count = 0;
  for (const char of pattern) {
    count += char === '*' ? 1 : 0;
  }
  return count;
}

/** A pattern split at its `*`: the literal parts, in order (one part: an exact name). */
type Compiled = readonly string[];

function compile(pattern: string): Compiled {
  return pattern.split('*');
}

/**
 * Whether the name is the literal parts in order with anything between them. No backtracking:
 * the first and last parts are a prefix and a suffix, and each middle part is taken where it
 * first appears after the previous one (an earlier place never leaves less room for the rest),
 * so every character of the name is passed over once per part at most.
 */
function matchesCompiled(parts: Compiled, name: string): boolean {
  const first = parts[0] ?? '';
  if (parts.length === 1) {
    return first === name;
  }
  const last = parts[parts.length - 1] ?? '';
  const end = name.length - last.length;
  if (end < first.length || !name.startsWith(first) || !name.endsWith(last)) {
    return false;
  }
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at);
    if (found < 0 || found + part.length > end) {
      return false;
    }
    at = found + part.length;
  }
  return true;
}

export function matchesPattern(pattern: string, name: string): boolean {
  return matchesCompiled(compile(pattern), name);
}

/**
 * Patterns compiled once, looked up many times: the value of the most specific pattern that
 * matches a name. Build it when the patterns change (a config snapshot), not per request.
 */
export class PatternTable<T> {
  private readonly exact = new Map<string, T>();
  /** Wildcard patterns, most literal characters first; ties keep the order they were written in. */
  private readonly wildcards: Array<{ pattern: string; parts: Compiled; value: T }>;

  constructor(entries: Iterable<readonly [pattern: string, value: T]>) {
    const wildcards: Array<{ pattern: string; parts: Compiled; value: T; literal: number }> = [];
    for (const [pattern, value] of entries) {
      if (!pattern.includes('*')) {
        if (!this.exact.has(pattern)) {
          this.exact.set(pattern, value);
        }
      } else {
        wildcards.push({
          pattern,
          parts: compile(pattern),
          value,
          literal: pattern.replaceAll('*', '').length,
        });
      }
    }
    this.wildcards = wildcards.sort((a, b) => b.literal - a.literal);
  }

  get size(): number {
    return this.exact.size + this.wildcards.length;
  }

  lookup(name: string): T | undefined {
    if (this.exact.has(name)) {
      return this.exact.get(name);
    }
    return this.wildcards.find((entry) => matchesCompiled(entry.parts, name))?.value;
  }

  /** Every pattern matching the name, most specific first. */
  matchesOf(name: string): Array<{ pattern: string; value: T }> {
    const exact = this.exact.has(name) ? [{ pattern: name, value: this.exact.get(name) as T }] : [];
    return [
      ...exact,
      ...this.wildcards
        .filter((entry) => matchesCompiled(entry.parts, name))
        .map((entry) => ({ pattern: entry.pattern, value: entry.value })),
    ];
  }

  /** Whether any pattern matches (an allowlist). */
  matches(name: string): boolean {
    return this.exact.has(name) || this.wildcards.some((entry) => matchesCompiled(entry.parts, name));
  }
}
