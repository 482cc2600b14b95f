import { AppError, ErrorCode } from '@gw/kit';
import { parseIdentifier, type Identifier } from './identifier.js';
import type { AccountRecord } from './model.js';
import { emailKey, nameKey } from './names.js';
import type { AccountLookup, AccountReads } from './ports/accounts.js';

/**
 * Tenants (docs/decisions.md §9, docs/adr/0007-multi-tenant-owners.md). Every account belongs to
 * one owner's tree: its `ownerId` (an owner's and root's is their own id). Single-tenant, root is
 * the one owner and every account is in its tree. Multi-tenant, root's children are owners and
 * each owns a tree: a target in another owner's tree does not exist for the caller (404), one in
 * the caller's tree but outside its subtree is 403. Lookups are confined to the caller's tenant
 * in the query itself, so a foreign row is never read and every "does not exist" takes the same
 * path whatever exists elsewhere.
 */

/** The owner whose tree an account is in (root's and an owner's: itself). */
export function tenantOf(account: Pick<AccountRecord, 'id' | 'ownerId'>): bigint {
  return account.ownerId ?? account.id;
}

/**
 * The DNA prefix of the rows an account's lookups may find: everything for root, the owner's
 * tree for anyone else (single-tenant that is root's tree, i.e. everything but nothing more).
 */
export function tenantDna(account: Pick<AccountRecord, 'id' | 'ownerId' | 'dna' | 'isRoot'>): string {
  if (account.isRoot) {
    return '.';
  }
  const tenant = `.${tenantOf(account)}.`;
  const at = account.dna.indexOf(tenant);
  return at < 0 ? account.dna : account.dna.slice(0, at + tenant.length);
}

/**
 * The scope a name or e-mail is unique in: the owner whose tree the account is in, except that
 * the owners themselves (and root) live in root's scope, since root manages them. Single-tenant
 * every account has root's scope: names are unique gateway-wide, as before tenants existed.
 */
export function nameScopeOf(
  account: Pick<AccountRecord, 'isRoot' | 'isOwner' | 'parentId' | 'ownerId'>,
  id: bigint,
): bigint {
  if (account.isRoot) {
    return id;
  }
  if (account.isOwner) {
    return account.parentId ?? id;
  }
  return account.ownerId ?? id;
}

/** The scope an account's own lookups by name or e-mail search: its tenant's. */
export function lookupScopeOf(caller: Pick<AccountRecord, 'id' | 'ownerId'>): bigint {
  return tenantOf(caller);
}

/** An `{identifier}` that names one account, as a lookup in the caller's scope. */
export function lookupOf(
  identifier: Exclude<Identifier, { kind: 'filter' }>,
  caller: Pick<AccountRecord, 'id' | 'ownerId'>,
): AccountLookup {
  switch (identifier.kind) {
    case 'id':
      return { by: 'id', id: identifier.id };
    case 'email':
      return { by: 'email', emailKey: emailKey(identifier.email), scope: lookupScopeOf(caller) };
    case 'dna':
      return { by: 'dna', dna: identifier.dna };
    case 'name':
      return { by: 'name', nameKey: nameKey(identifier.name), scope: lookupScopeOf(caller) };
  }
}

/** The raw `{identifier}` of an update, delete or read of one account. */
export function singleIdentifier(raw: string): Exclude<Identifier, { kind: 'filter' }> {
  const identifier = parseIdentifier(raw);
  if (identifier === undefined) {
    throw new AppError(ErrorCode.InvalidRequest, 'identifier is not an id, name, e-mail or DNA path');
  }
  if (identifier.kind === 'filter') {
    throw new AppError(ErrorCode.InvalidRequest, 'a prefix filter selects a list, not one account');
  }
  return identifier;
}

/** The account a caller names, within its tenant; 404 when there is none there. */
export async function findInTenant(
  reads: AccountReads,
  caller: AccountRecord,
  lookup: AccountLookup,
): Promise<AccountRecord> {
  const found = await reads.findOne(lookup, tenantDna(caller));
  if (!found) {
    throw new AppError(ErrorCode.NotFound, 'no such account');
  }
  return found;
}

/**
 * The owner a root operation inside a tenant's tree is reported to (that owner's operation log
 * shows it); undefined when the operator works inside its own tree.
 */
export function reportedTenant(operator: AccountRecord, target: AccountRecord): bigint | undefined {
  const tenant = tenantOf(target);
  return tenant === tenantOf(operator) ? undefined : tenant;
}
