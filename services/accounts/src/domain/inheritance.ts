import { splitPatternList } from '@gw/kit';
import { LIMIT_FIELDS, type AccountRecord, type Inherited, type LimitField } from './model.js';
import type { AccountReads } from './ports/accounts.js';

/**
 * What an account may use is the intersection of its own lists and every ancestor's, taken when
 * it is read (docs/decisions.md §13): narrowing a parent narrows every descendant at once, and no
 * descendant row is rewritten. An empty list restricts nothing (everything the owner allows).
 */

/** The ids on a DNA path above the account itself (`.1.5.9.` → 1, 5), nearest last. */
export function ancestorIds(dna: string): bigint[] {
  const ids = dna.split('.').filter((part) => part !== '');
  return ids.slice(0, -1).map((id) => BigInt(id));
}

/** The account's live ancestors, nearest first. */
export async function loadAncestors(reads: AccountReads, account: AccountRecord): Promise<AccountRecord[]> {
  const ids = ancestorIds(account.dna);
  if (ids.length === 0) {
    return [];
  }
  const byId = new Map((await reads.findByIds(ids)).map((row) => [row.id, row]));
  return ids
    .reverse()
    .map((id) => byId.get(id))
    .filter((row): row is AccountRecord => row !== undefined);
}

/** The smallest positive value, or 0 when there is none. */
export function smallestLimit(values: readonly bigint[]): bigint {
  return values
    .filter((value) => value > 0n)
    .reduce((min, value) => (min === 0n || value < min ? value : min), 0n);
}

/**
 * What a chain of ancestors (nearest first) imposes: their non-empty lists, smallest limits,
 * ModelLimits, and whether one of them is off (disabled or suspended turns off the whole subtree).
 */
export function inheritedFrom(ancestors: readonly AccountRecord[]): Inherited {
  const lists = (pick: (row: AccountRecord) => string) =>
    ancestors.map(pick).filter((text) => splitPatternList(text).length > 0);
  return {
    allowModels: lists((row) => row.allowModels),
    allowLevels: lists((row) => row.allowLevels),
    resources: lists((row) => row.resources),
    allowIps: lists((row) => row.allowIps),
    limits: Object.fromEntries(
      LIMIT_FIELDS.map((field) => [field, smallestLimit(ancestors.map((row) => row[field]))]),
    ) as Record<LimitField, bigint>,
    disabled: ancestors.some((row) => !row.status),
    suspended: ancestors.some((row) => row.suspended),
    modelLimits: ancestors.map((row) => row.modelLimits).filter((limits) => Object.keys(limits).length > 0),
  };
}

/** What one account contributes to the restrictions of the accounts below it. */
export type LayerValues = Pick<
  AccountRecord,
  | 'allowModels'
  | 'allowLevels'
  | 'resources'
  | 'allowIps'
  | 'modelMapper'
  | 'modelLimits'
  | 'rpm'
  | 'rph'
  | 'rpd'
  | 'tpm'
  | 'tph'
  | 'tpd'
>;

/**
 * The layers that bound an account: the account itself first, then each ancestor. A value is
 * allowed when every layer with a non-empty list allows it.
 */
export type Layers = readonly LayerValues[];
