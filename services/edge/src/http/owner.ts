import { ownerIdOf } from '@gw/kit';
import type { accounts } from '@gw/proto';

/** Root's own pool: the Provider policy allows private network ranges there (self-hosted models). */
export function isRootPool(caller: accounts.Account): boolean {
  return caller.isRoot && ownerIdOf(caller) === caller.id;
}
