import {
  AddressList,
  AppError,
  ErrorCode,
  matchesPattern,
  parseMapper,
  patternsOverlap,
  splitPatternList,
} from '@gw/kit';
import { entriesText } from './account-values.js';
import { smallestLimit, type Layers, type LayerValues } from './inheritance.js';
import { LIMIT_FIELDS } from './model.js';

/**
 * A child never gets more than the account that creates or changes it (docs/decisions.md §13):
 * checked when anyone but an owner (or root) sets these fields. The actor's effective lists are
 * its own and its ancestors' (`Layers`); a child value must fit inside every non-empty one.
 */

/** A child's own values after the change. */
export type ChildValues = LayerValues;

function refuse(field: string, entries: readonly string[], what: string): never {
  throw new AppError(
    ErrorCode.InvalidRequest,
    `${field} must stay within ${what}; not allowed: ${entriesText(entries)}`,
    { field },
  );
}

/**
 * A pattern fits inside a list when one of its patterns matches it read literally: every
 * expansion of the child's `*` is then matched by the same `*` of the parent's pattern (sound,
 * so a pattern in doubt is refused).
 */
function patternCovered(list: readonly string[], pattern: string): boolean {
  return list.some((allowed) => matchesPattern(allowed, pattern));
}

function nonEmptyLists(layers: Layers, pick: (row: LayerValues) => string): string[][] {
  return layers.map((row) => splitPatternList(pick(row))).filter((list) => list.length > 0);
}

/** Entries of `text` that some non-empty layer does not allow. */
function outside(
  layers: Layers,
  pick: (row: LayerValues) => string,
  text: string,
  allows: (list: readonly string[], entry: string) => boolean,
): string[] {
  const lists = nonEmptyLists(layers, pick);
  return splitPatternList(text).filter((entry) => lists.some((list) => !allows(list, entry)));
}

/** Whether a model may be used under these layers (each non-empty AllowModels matches it). */
export function modelAllowed(layers: Layers, model: string): boolean {
  return nonEmptyLists(layers, (row) => row.allowModels).every((list) => patternCovered(list, model));
}

function ipsOutside(layers: Layers, text: string): string[] {
  // A stored list that cannot be read allows nothing (as at the edge).
  const lists = nonEmptyLists(layers, (row) => row.allowIps).map((list) => AddressList.parse(list.join(' ')));
  return splitPatternList(text).filter((entry) =>
    lists.some((list) => 'invalid' in list || !list.covers(entry)),
  );
}

/** RPM…TPD: 0 (no limit of its own: the ancestors' apply) or at most the smallest the actor has. */
function checkLimits(layers: Layers, child: ChildValues, set: ReadonlySet<keyof ChildValues>): void {
  for (const field of LIMIT_FIELDS) {
    const ceiling = smallestLimit(layers.map((row) => row[field]));
    if (set.has(field) && ceiling > 0n && child[field] > ceiling) {
      refuse(field.toUpperCase(), [`${child[field]}`], `your own limit (${ceiling})`);
    }
  }
}

/**
 * ModelLimits entries above a limit an actor layer sets for a pattern that matches some of the
 * same models (the two patterns overlap: `gpt-4o-mini*` under `gpt-4o-mini`).
 */
function modelLimitsAbove(layers: Layers, limits: Record<string, unknown>): string[] {
  const above: string[] = [];
  for (const [model, value] of Object.entries(limits)) {
    for (const [name, amount] of Object.entries(value as Record<string, number>)) {
      const exceeded = layers.some((row) =>
        Object.entries(row.modelLimits).some(([pattern, parent]) => {
          const ceiling = (parent as Record<string, number | undefined>)[name] ?? 0;
          return ceiling > 0 && patternsOverlap(pattern, model) && amount > ceiling;
        }),
      );
      if (exceeded) {
        above.push(`${model}.${name} ${amount}`);
      }
    }
  }
  return above;
}

/**
 * Refuses child values outside what the actor may use: AllowModels, AllowLevels and Resources
 * inside the actor's effective lists, AllowIPs inside its ranges, RPM…TPD and ModelLimits no
 * higher than the actor's where it has them. Only the fields being set (`set`) are checked.
 */
export function checkWithinActor(
  actor: Layers,
  child: ChildValues,
  set: ReadonlySet<keyof ChildValues>,
): void {
  const within = 'what you may use';
  if (set.has('allowModels')) {
    const bad = outside(actor, (row) => row.allowModels, child.allowModels, patternCovered);
    if (bad.length > 0) {
      refuse('AllowModels', bad, `${within} (your AllowModels)`);
    }
  }
  if (set.has('allowLevels')) {
    const bad = outside(
      actor,
      (row) => row.allowLevels,
      child.allowLevels,
      (list, entry) => list.some((level) => Number(level) === Number(entry)),
    );
    if (bad.length > 0) {
      refuse('AllowLevels', bad, `${within} (your AllowLevels)`);
    }
  }
  if (set.has('resources')) {
    const bad = outside(
      actor,
      (row) => row.resources,
      child.resources,
      (list, entry) => list.includes(entry),
    );
    if (bad.length > 0) {
      refuse('Resources', bad, `${within} (your Resources)`);
    }
  }
  if (set.has('allowIps')) {
    const bad = ipsOutside(actor, child.allowIps);
    if (bad.length > 0) {
      refuse('AllowIPs', bad, 'your AllowIPs ranges');
    }
  }
  checkLimits(actor, child, set);
  if (set.has('modelLimits')) {
    const above = modelLimitsAbove(actor, child.modelLimits);
    if (above.length > 0) {
      refuse('ModelLimits', above, 'your ModelLimits');
    }
  }
}

/** ModelMapper targets the child may not use (checked against the child's own effective lists). */
export function checkMapperTargets(childLayers: Layers, modelMapper: string): void {
  const bad = parseMapper(modelMapper)
    .map(([, target]) => target)
    .filter((target) => !modelAllowed(childLayers, target));
  if (bad.length > 0) {
    refuse('ModelMapper', bad, 'the models this account may use');
  }
}
