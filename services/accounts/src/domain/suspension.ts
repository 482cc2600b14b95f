import { AppError, ErrorCode } from '@gw/kit';
import type { AccountRecord } from './model.js';

type Actor = Pick<AccountRecord, 'id' | 'dna'>;

/** One of the two switches an ancestor turns off: Suspended, or Status (false is off). */
interface Switch {
  name: 'Suspended' | 'Status';
  /** Whether the target is off now. */
  off: boolean;
  /** Who turned it off (null when on, or off from before one was kept). */
  by: bigint | null;
}

/**
 * Whether the actor is the account that turned the switch off, or above it. That account is an
 * ancestor of the target, so its DNA is the target's cut after its id; a switch turned off
 * without a record of who (before one was kept) counts as anyone's.
 */
function atOrAbove(actor: Actor, targetDna: string, by: bigint | null): boolean {
  if (by === null || by === actor.id) {
    return true;
  }
  const segment = `.${by}.`;
  const at = targetDna.indexOf(segment);
  return at < 0 || targetDna.slice(0, at + segment.length).startsWith(actor.dna);
}

/**
 * A switch an ancestor turned off can be turned on only by that ancestor or one above it
 * (docs/decisions.md §13): a parent cannot undo what the owner or root decided. Returns who
 * stands as the one who turned it off afterwards: turning it off again from below keeps the
 * higher one.
 */
function offByAfter(actor: Actor, targetDna: string, current: Switch, off: boolean): bigint | null {
  const mine = !current.off || atOrAbove(actor, targetDna, current.by);
  if (off) {
    return mine ? actor.id : current.by;
  }
  if (!mine) {
    const what = current.name === 'Status' ? 'Status false' : 'Suspended';
    throw new AppError(
      ErrorCode.Forbidden,
      `${what} was set by an account above you: only it or an account above it may undo it`,
    );
  }
  return null;
}

/** Who stands as the suspender after the actor sets Suspended. */
export function suspenderAfter(
  actor: Actor,
  target: Pick<AccountRecord, 'dna' | 'suspended' | 'suspendedBy'>,
  suspended: boolean,
): bigint | null {
  const current: Switch = { name: 'Suspended', off: target.suspended, by: target.suspendedBy };
  return offByAfter(actor, target.dna, current, suspended);
}

/** Who stands as the one who disabled the account after the actor sets Status. */
export function disablerAfter(
  actor: Actor,
  target: Pick<AccountRecord, 'dna' | 'status' | 'disabledBy'>,
  status: boolean,
): bigint | null {
  const current: Switch = { name: 'Status', off: !target.status, by: target.disabledBy };
  return offByAfter(actor, target.dna, current, !status);
}
