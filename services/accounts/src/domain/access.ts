import { AppError, ErrorCode } from '@gw/kit';
import { isInScope, isSelfOrInScope } from './dna.js';
import type { AccountRecord } from './model.js';

// Tenancy and role checks, named and in one place.

/**
 * A disabled or suspended account may still read; it may not change anything. An ancestor
 * disabled or suspended turns off its whole subtree (docs/decisions.md §13): the parent holds its
 * children's keys, so its own switch alone would stop nothing.
 */
export function assertMayWrite(caller: AccountRecord, ancestors: readonly AccountRecord[]): void {
  if (caller.suspended) {
    throw new AppError(ErrorCode.Forbidden, 'this account is suspended: changes are refused');
  }
  if (!caller.status) {
    throw new AppError(ErrorCode.Forbidden, 'this account is disabled: changes are refused');
  }
  if (ancestors.some((row) => row.suspended)) {
    throw new AppError(ErrorCode.Forbidden, 'an account above this one is suspended: changes are refused');
  }
  if (ancestors.some((row) => !row.status)) {
    throw new AppError(ErrorCode.Forbidden, 'an account above this one is disabled: changes are refused');
  }
}

export function assertManages(caller: AccountRecord, target: AccountRecord): void {
  if (!isInScope(caller, target)) {
    throw new AppError(ErrorCode.Forbidden, 'the target is outside your accounts');
  }
}

export function assertSelfOrManages(caller: AccountRecord, target: AccountRecord): void {
  if (!isSelfOrInScope(caller, target)) {
    throw new AppError(ErrorCode.Forbidden, 'the target is outside your accounts');
  }
}

export function assertRoot(caller: AccountRecord): void {
  if (!caller.isRoot) {
    throw new AppError(ErrorCode.Forbidden, 'only root may do this');
  }
}
