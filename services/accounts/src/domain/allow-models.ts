import { splitPatternList } from '@gw/kit';

/**
 * AllowModels string operations of an update, applied in order: `*` resets the allowlist (to
 * `resetTo`: empty for an owner, the parent's list for anyone else, so a reset never widens what
 * a child may use), `-<model>` removes an entry, anything else adds one. Entries are separated by
 * spaces or commas.
 */
export function applyAllowModels(current: string, operations: string, resetTo = ''): string {
  let entries = splitPatternList(current);
  for (const token of splitPatternList(operations)) {
    if (token === '*') {
      entries = splitPatternList(resetTo);
    } else if (token.startsWith('-')) {
      const removed = token.slice(1);
      entries = entries.filter((entry) => entry !== removed);
    } else if (!entries.includes(token)) {
      entries.push(token);
    }
  }
  return entries.join(' ');
}
