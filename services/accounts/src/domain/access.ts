import { AppError, ErrorCode } from '@gw/kit';
import { isInScope, isSelfOrInScope } from './dna.js';
import type { AccountRecord } from './model.js';

/** Tenancy and role checks, named and in one place. */
export function assertActive(caller: AccountRecord): void {
  if (!caller.status || caller.suspended) {
    throw new AppError(ErrorCode.Forbidden, 'this account is disabled or suspended');
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
