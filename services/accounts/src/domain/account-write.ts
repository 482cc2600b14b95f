import { AppError, ErrorCode } from '@gw/kit';
import type { AccountRecord } from './model.js';
import type { AccountWrite } from './ports/accounts.js';

/** The refusal of a name or e-mail another account already uses: 409 `conflict`, as documented. */
export function takenError(field: 'name' | 'email'): AppError {
  return new AppError(
    ErrorCode.Conflict,
    field === 'name' ? 'Name is already taken' : 'Email is already registered',
    { field },
  );
}

/** The account a store write returned, or the refusal it reported, as the caller's error. */
export function writtenAccount(result: AccountWrite): AccountRecord {
  if ('written' in result) {
    return result.written;
  }
  switch (result.refused) {
    case 'name_taken':
      throw takenError('name');
    case 'email_taken':
      throw takenError('email');
    case 'not_found':
      throw new AppError(ErrorCode.NotFound, 'no such account');
  }
}
