/**
 * AllowModels string operations of an update, applied in order: `*` resets the allowlist,
 * `-<model>` removes an entry, anything else adds one. Entries are separated by spaces or commas.
 */
export function applyAllowModels(current: string, operations: string): string {
  let entries = splitList(current);
  for (const token of splitList(operations)) {
    if (token === '*') {
      entries = [];
    } else if (token.startsWith('-')) {
      const removed = token.slice(1);
      entries = entries.filter((entry) => entry !== removed);
    } else if (!entries.includes(token)) {
      entries.push(token);
    }
  }
  return entries.join(' ');
}

export function splitList(text: string): string[] {
  return text.split(/[\s,]+/).filter((item) => item !== '');
}

/** A resource allowlist is a subset of its parent's; an empty parent list allows everything. */
export function resourcesOutsideParent(child: string, parent: string): string[] {
  const allowed = new Set(splitList(parent));
  if (allowed.size === 0) {
    return [];
  }
  return splitList(child).filter((item) => !allowed.has(item));
}
