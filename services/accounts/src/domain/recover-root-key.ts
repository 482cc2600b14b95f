import { generateApiKey } from './api-key.js';
import type { AccountsDeps } from './ports/deps.js';
import { replaceKey } from './replace-key.js';

/**
 * `gw root-key --rotate`: an operator who can reach the database (and has lost root's key, or
 * fears it leaked) gives root a new generated key. The old one is refused at once, like a
 * rotation through /x-root, without the old key or the confirm phrase.
 */
export async function recoverRootKey(
  deps: Pick<AccountsDeps, 'store' | 'events' | 'clock'>,
): Promise<{ rootId: bigint; key: string }> {
  const root = await deps.store.accounts.findRoot();
  if (!root) {
    throw new Error('there is no root account yet: start the accounts service once to create it');
  }
  const key = generateApiKey();
  const described = await replaceKey(deps, root.id, key);
  deps.events.audit({
    action: 'rotate_root',
    operatorId: root.id,
    targetId: root.id,
    details: `rotated the key of root (${root.id}) from the command line; new key ${described.prefix}...${described.last4}`,
    ipAddress: '',
  });
  return { rootId: root.id, key };
}
