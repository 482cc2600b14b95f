import type { AccountRecord } from './model.js';

/** A caller manages a target when the caller's DNA is a strict prefix of the target's. */
export function isInScope(caller: Pick<AccountRecord, 'dna'>, target: Pick<AccountRecord, 'dna'>): boolean {
  return target.dna.length > caller.dna.length && target.dna.startsWith(caller.dna);
}

export function isSelfOrInScope(
  caller: Pick<AccountRecord, 'dna'>,
  target: Pick<AccountRecord, 'dna'>,
): boolean {
  return target.dna.startsWith(caller.dna);
}

export function childDna(parentDna: string, id: bigint): string {
  return `${parentDna}${id}.`;
}
