import { AppError, ErrorCode } from '@gw/kit';
import { parseIdentifier } from './identifier.js';
import type { AccountLookup } from './ports/accounts.js';
import { emailKey, nameKey } from './names.js';

/** The `{identifier}` of an update or delete: one account by id, name, e-mail or DNA. */
export function singleLookup(raw: string): AccountLookup {
  const identifier = parseIdentifier(raw);
  switch (identifier?.kind) {
    case 'id':
      return { by: 'id', id: identifier.id };
    case 'email':
      return { by: 'email', emailKey: emailKey(identifier.email) };
    case 'dna':
      return { by: 'dna', dna: identifier.dna };
    case 'name':
      return { by: 'name', nameKey: nameKey(identifier.name) };
    case 'filter':
      throw new AppError(ErrorCode.InvalidRequest, 'a prefix filter selects a list, not one account');
    case undefined:
      throw new AppError(ErrorCode.InvalidRequest, 'identifier is not an id, name, e-mail or DNA path');
  }
}
