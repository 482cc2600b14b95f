import { writtenAccount } from './account-write.js';
import { describeKey, generateApiKey } from './api-key.js';
import type { AccountRecord, NewAccount } from './model.js';
import { emailKey, nameKey } from './names.js';
import type { AccountsDeps } from './ports/deps.js';

export interface BootstrapResult {
  root: AccountRecord;
  /** Set only when this start created root with a generated key: to be printed once. */
  generatedKey?: string;
}

/**
 * Creates root at the first start, with GW_ROOT_KEY or a generated key. Later starts keep the
 * stored key: a key rotated through /x-root is not revived by a stale GW_ROOT_KEY.
 */
export async function bootstrapRoot(
  deps: AccountsDeps,
  rootKey: string | undefined,
): Promise<BootstrapResult> {
  const existing = await deps.store.accounts.findRoot();
  if (existing) {
    return { root: existing };
  }
  const key = rootKey ?? generateApiKey();
  const described = describeKey(key);
  const root: NewAccount = {
    parentId: null,
    ownerId: null,
    name: 'root',
    email: 'root@localhost.invalid',
    alias: 'root',
    billingEmail: 'root@localhost.invalid',
    qrCode: '',
    isOwner: true,
    isRoot: true,
    level: 0,
    gear: 0,
    role: 0,
    tier: 0,
    factor: 1,
    rates: 1,
    status: true,
    suspended: false,
    suspendedBy: null,
    disabledBy: null,
    hardLimitNano: 0n,
    softLimitNano: 0n,
    dailyLimitNano: 0n,
    userLimitNano: 0n,
    autoQuotaNano: 0n,
    rpm: 0n,
    rph: 0n,
    rpd: 0n,
    tpm: 0n,
    tph: 0n,
    tpd: 0n,
    allowIps: '',
    allowModels: '',
    allowLevels: '',
    resources: '',
    modelLimits: {},
    modelMapper: '',
    levelMapper: '',
    keyHash: described.hash,
    keyPrefix: described.prefix,
    keyLast4: described.last4,
  };
  // Two accounts replicas starting together: the unique index on is_root lets one win, and the
  // other finds the winner.
  const created = await deps.store
    .transaction(async (tx) =>
      (await tx.accounts.findRoot())
        ? undefined
        : writtenAccount(
            await tx.accounts.insert(
              { ...root, nameKey: nameKey(root.name), emailKey: emailKey(root.email) },
              '.',
              deps.clock.now(),
            ),
          ),
    )
    .catch(async (error: unknown) => {
      if (await deps.store.accounts.findRoot()) {
        return undefined;
      }
      throw error;
    });
  if (!created) {
    const winner = await deps.store.accounts.findRoot();
    if (!winner) {
      throw new Error('root could not be created');
    }
    return { root: winner };
  }
  return rootKey ? { root: created } : { root: created, generatedKey: key };
}
