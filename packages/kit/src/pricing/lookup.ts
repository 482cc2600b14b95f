import type { PriceTable, PricingSection } from './sections.js';

/**
 * Which entry of a section prices a model name. In order, the first that the section has:
 * 1. the name itself;
 * 2. without a vendor path (`openai/gpt-4o`, `models/gemini-2.0-flash` → the last segment);
 * 3. without version suffixes, removed one at a time from the end: a date (`-2024-08-06`,
 *    `-20241022`, `@20240620`), a four-digit snapshot (`-0613`), a three-digit version (`-002`),
 *    `-latest`, `-stable`, `-exp` (`gpt-4o-2024-08-06` → `gpt-4o`);
 * 4. the longest entry the stripped name starts with, followed by `-` (`gpt-4o-search-preview`
 *    → `gpt-4o`, `gemini-2.5-flash-preview-05-20` → `gemini-2.5-flash`).
 * An owner's own model names are found by rule 1 like any other.
 */
const VERSION_SUFFIX = /(?:-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8}|-\d{4}|-\d{3}|-latest|-stable|-exp)$/;

export function findPriceEntry<S extends PricingSection>(
  table: PriceTable,
  section: S,
  model: string,
): { name: string; entry: PriceTable[S][string] } | undefined {
  const entries = table[section] as Record<string, PriceTable[S][string]>;
  const found = (name: string) =>
    Object.hasOwn(entries, name) ? { name, entry: entries[name] as PriceTable[S][string] } : undefined;
  let name = model.trim();
  if (name === '') {
    return undefined;
  }
  const direct = found(name);
  if (direct) {
    return direct;
  }
  name = name.slice(name.lastIndexOf('/') + 1);
  for (;;) {
    const candidate = found(name);
    if (candidate) {
      return candidate;
    }
    const stripped = name.replace(VERSION_SUFFIX, '');
    if (stripped === name || stripped === '') {
      break;
    }
    name = stripped;
  }
  let best: string | undefined;
  for (const key of Object.keys(entries)) {
    if (name.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) {
      best = key;
    }
  }
  return best === undefined ? undefined : found(best);
}
