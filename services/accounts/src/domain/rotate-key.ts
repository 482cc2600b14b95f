import { AppError, ErrorCode, recordingFailure } from '@gw/kit';
import { assertRoot } from './access.js';
import { generateApiKey, weakKeyProblem } from './api-key.js';
import { loadCaller } from './load-caller.js';
import type { AccountRecord } from './model.js';
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
 * edge replica drops it at once. A supplied key must be strong (weakKeyProblem) or the rotation
 * is refused; without one a key is generated. A refusal is logged as failed, without the key.
 */
export async function rotateKey(deps: AccountsDeps, input: RotateKeyInput): Promise<RotatedKey> {
  const caller = await loadCaller(deps, input.callerId);
  const failure = {
    action: input.root ? ('rotate_root' as const) : ('rotate_self' as const),
    operatorId: caller.id,
    ipAddress: input.ipAddress ?? '',
    attempt: 'key rotation',
  };
  return recordingFailure(
    (entry) => deps.events.audit(entry),
    failure,
    () => rotateAs(deps, caller, input),
  );
}

async function rotateAs(
  deps: AccountsDeps,
  caller: AccountRecord,
  input: RotateKeyInput,
): Promise<RotatedKey> {
  if (input.root) {
    assertRoot(caller);
  }
  const now = deps.clock.now();
  if (input.confirm !== confirmPhrase(now, input.root)) {
    throw new AppError(ErrorCode.InvalidRequest, `confirm must be "${confirmPhrase(now, input.root)}"`);
  }
  const weak = input.key === undefined ? undefined : weakKeyProblem(input.key);
  if (weak) {
    throw new AppError(ErrorCode.InvalidRequest, weak, { field: 'key' });
  }
  const key = input.key ?? generateApiKey();
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
