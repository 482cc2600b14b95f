import type { accounts } from '@gw/proto';

/** Root or an owner: manages its whole tree, and its own key pool and configuration. */
export function isOwnerAccount(account: accounts.Account): boolean {
  return account.isOwner || account.isRoot;
}

/**
 * The owner whose key pool and configuration the caller manages. Owner routes are reached only
 * by owners (or root), whose ownerId is their own id; single-tenant, root is the owner.
 */
export function ownerIdOf(caller: accounts.Account): bigint {
  return caller.ownerId !== 0n ? caller.ownerId : caller.id;
}

/** Root's own pool: the Provider policy allows private network ranges there (self-hosted models). */
export function isRootPool(caller: accounts.Account): boolean {
  return caller.isRoot && ownerIdOf(caller) === caller.id;
}
