import { CompiledOnce } from './compiled-once.js';
import { PatternTable, splitPatternList } from './patterns.js';

/** The caller's own lists arrive with every request: each distinct text is compiled once. */
const modelAllowlists = new CompiledOnce((text) => {
  const patterns = splitPatternList(text);
  return patterns.length === 0
    ? 'all'
    : new PatternTable(patterns.map((pattern) => [pattern, true] as const));
});

/** AllowModels: patterns separated by space (commas tolerated); empty allows every model. */
export function isModelAllowed(allowModels: string, model: string): boolean {
  const allowlist = modelAllowlists.get(allowModels);
  return allowlist === 'all' || allowlist.matches(model);
}

/**
 * The caller's effective AllowModels (docs/decisions.md §13): its own list and every list its
 * ancestors impose must allow the model. The proxy checks calls with it, the edge filters the
 * model listing with it.
 */
export function callerMayUseModel(
  caller: { allowModels: string; inherited: { allowModels: readonly string[] } },
  model: string,
): boolean {
  return [caller.allowModels, ...caller.inherited.allowModels].every((list) => isModelAllowed(list, model));
}
