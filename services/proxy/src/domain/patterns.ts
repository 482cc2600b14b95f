/**
 * Model patterns as the spec writes them: a name with `*` wildcards (`gpt-4*`, `*`). Where several
 * patterns match, the most specific one wins: an exact name first, then the pattern with the most
 * literal characters, then the one written first.
 */

export function matchesPattern(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) {
    return pattern === name;
  }
  const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(name);
}

function specificity(pattern: string): number {
  return pattern.includes('*') ? pattern.replaceAll('*', '').length : Number.MAX_SAFE_INTEGER;
}

/** The value of the most specific matching pattern, or undefined. */
export function mostSpecific<T>(
  entries: ReadonlyArray<readonly [pattern: string, value: T]>,
  name: string,
): T | undefined {
  let best: { score: number; value: T } | undefined;
  for (const [pattern, value] of entries) {
    if (!matchesPattern(pattern, name)) {
      continue;
    }
    const score = specificity(pattern);
    if (!best || score > best.score) {
      best = { score, value };
    }
  }
  return best?.value;
}

/** `a=b, c=d` → [['a','b'], ['c','d']]; entries are trimmed, malformed ones skipped. */
export function parsePairs(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const entry of text.split(/[,\n]/)) {
    const at = entry.indexOf('=');
    if (at <= 0) {
      continue;
    }
    const left = entry.slice(0, at).trim();
    const right = entry.slice(at + 1).trim();
    if (left && right) {
      pairs.push([left, right]);
    }
  }
  return pairs;
}

/** AllowModels: patterns separated by space (commas tolerated); empty allows every model. */
export function isModelAllowed(allowModels: string, model: string): boolean {
  const patterns = allowModels.split(/[\s,]+/).filter(Boolean);
  return patterns.length === 0 || patterns.some((pattern) => matchesPattern(pattern, model));
}

/** AllowLevels: integers separated by comma or space; empty allows every Level. */
export function isLevelAllowed(allowLevels: string, level: number): boolean {
  const levels = allowLevels.split(/[\s,]+/).filter(Boolean);
  return levels.length === 0 || levels.some((value) => Number(value) === level);
}
