import { AppError, ErrorCode } from '@gw/kit';
import type { AccountRecord } from './model.js';

type Actor = Pick<AccountRecord, 'id' | 'dna'>;
type Target = Pick<AccountRecord, 'dna' | 'suspended' | 'suspendedBy'>;

/**
 * Whether the actor is the account that suspended the target, or above it. The suspender is an
 * ancestor of the target, so its DNA is the target's cut after its id; a suspension recorded
 * without a suspender (before one was kept) counts as anyone's.
 */
function atOrAboveSuspender(actor: Actor, target: Target): boolean {
  if (target.suspendedBy === null || target.suspendedBy === actor.id) {
    return true;
  }
  const segment = `.${target.suspendedBy}.`;
  const at = target.dna.indexOf(segment);
  return at < 0 || target.dna.slice(0, at + segment.length).startsWith(actor.dna);
}

/**
 * Suspended set by an ancestor can be lifted only by that ancestor or one above it
 * (docs/decisions.md §13): a parent cannot undo what the owner decided. Returns who stands as
 * the suspender afterwards: suspending again from below keeps the higher suspender.
 */
export function suspenderAfter(actor: Actor, target: Target, suspended: boolean): bigint | null {
  const mine = !target.suspended || atOrAboveSuspender(actor, target);
  if (suspended) {
    return mine ? actor.id : target.suspendedBy;
  }
  if (!mine) {
    throw new AppError(
      ErrorCode.Forbidden,
      'Suspended was set by an account above you: only it or an account above it may lift it',
    );
  }
  return null;
}
