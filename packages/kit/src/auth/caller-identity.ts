import type { accounts } from '@gw/proto';
import type { CallerIdentity } from '../caller.js';
import { accountModelLimits, fromModelLimitsMessage } from '../model-limits.js';

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

/**
 * What the proxy needs to know about the caller: the owner whose pool serves it (root and owners
 * are served by their own), and its effective lists, i.e. its own together with those its
 * ancestors impose (accounts reads them along the DNA path, docs/decisions.md §13).
 */
export function callerIdentity(account: accounts.Account, apiBalanceFloorNano: bigint): CallerIdentity {
  return {
    accountId: String(account.id),
    ownerId: String(ownerIdOf(account)),
    allowModels: account.allowModels,
    allowLevels: account.allowLevels,
    modelMapper: account.modelMapper,
    levelMapper: account.levelMapper,
    resources: account.resources,
    limits: effectiveLimits(account),
    modelLimits: JSON.stringify(accountModelLimits(account)),
    inherited: {
      allowModels: account.inherited?.allowModels ?? [],
      allowLevels: account.inherited?.allowLevels ?? [],
      resources: account.inherited?.resources ?? [],
      modelLimits: (account.inherited?.modelLimits ?? []).map((limits) =>
        JSON.stringify(fromModelLimitsMessage(limits)),
      ),
    },
    // Root mints credit: nothing to reserve against.
    ...(account.isRoot
      ? {}
      : {
          spend: {
            balanceNano: String(account.balanceNano),
            floorNano: String(apiBalanceFloorNano),
            rates: account.rates || 1,
            factor: account.factor || 1,
          },
        }),
  };
}

const LIMIT_FIELDS = ['rpm', 'rph', 'rpd', 'tpm', 'tph', 'tpd'] as const;

/**
 * The account's rate limits: its own, or where it sets none (0), the smallest its ancestors set
 * (accounts never lets a child's own limit exceed its creator's).
 */
function effectiveLimits(account: accounts.Account): CallerIdentity['limits'] {
  return Object.fromEntries(
    LIMIT_FIELDS.map((field) => [field, Number(account[field] || account.inherited?.[field] || 0n)]),
  );
}
