import { AppError, ErrorCode } from '@gw/kit';
import { assertRoot } from './access.js';
import { generateApiKey, isAcceptableSuppliedKey } from './api-key.js';
import { loadCaller } from './load-caller.js';
import type { AccountsDeps } from './ports/deps.js';
import { replaceKey } from './replace-key.js';

export interface RotateKeyInput {
  callerId: bigint;
  confirm: string;
  key: string | undefined;
  /** /x-root: root rotating its own key with the -ROTATE-ROOT phrase. */
  root: boolean;
  ipAddress?: string;
}

export interface RotatedKey {
  id: bigint;
  name: string;
  key: string;
  rotatedAt: Date;
}

/** `<YYYY-MM-DD of today, UTC>-ROTATE-SELF` (or -ROTATE-ROOT): only today's phrase is accepted. */
export function confirmPhrase(now: Date, root: boolean): string {
  return `${now.toISOString().slice(0, 10)}-ROTATE-${root ? 'ROOT' : 'SELF'}`;
}

/**
 * Replaces the caller's API key. The old hash is announced on gw.account.changed.<id> so every
 * edge replica drops it at once. A supplied key is used when acceptable, else one is generated.
 */
export async function rotateKey(deps: AccountsDeps, input: RotateKeyInput): Promise<RotatedKey> {
  const caller = await loadCaller(deps, input.callerId);
  if (input.root) {
    assertRoot(caller);
  }
  const now = deps.clock.now();
  if (input.confirm !== confirmPhrase(now, input.root)) {
    throw new AppError(ErrorCode.InvalidRequest, `confirm must be "${confirmPhrase(now, input.root)}"`);
  }
  const key = input.key !== undefined && isAcceptableSuppliedKey(input.key) ? input.key : generateApiKey();
  const described = await replaceKey(deps, caller.id, key);
  deps.events.audit({
    action: input.root ? 'rotate_root' : 'rotate_self',
    operatorId: caller.id,
    targetId: caller.id,
    details: `rotated the key of ${caller.name} (${caller.id}); new key ${described.prefix}...${described.last4}`,
    ipAddress: input.ipAddress ?? '',
  });
  return { id: caller.id, name: caller.name, key, rotatedAt: now };
}
