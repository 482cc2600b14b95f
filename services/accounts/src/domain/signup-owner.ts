import { AppError, ErrorCode } from '@gw/kit';
import { parseIdentifier } from './identifier.js';
import type { AccountRecord } from './model.js';
import { emailKey, nameKey } from './names.js';
import type { SignupDeps } from './ports/signup.js';

const UNAVAILABLE = 'Sign-up is temporarily unavailable';

/**
 * The account signups are created under (SIGN_OWNER, root by default), looked up on each use so
 * it may be created after the gateway starts. A name or e-mail is looked up where root's own
 * subaccounts live (the owners, in multi-tenant mode); an id or DNA path names any account.
 * Missing or disabled, or root in multi-tenant mode (whose subaccounts are owners): signup is
 * unavailable.
 */
export async function loadSignupOwner(
  deps: Pick<SignupDeps, 'store' | 'policy'> & { signupPolicy: Pick<SignupDeps['signupPolicy'], 'owner'> },
): Promise<AccountRecord> {
  const identifier = parseIdentifier(deps.signupPolicy.owner);
  const rootScope = async () => (await deps.store.accounts.findRoot())?.id ?? 0n;
  let owner: AccountRecord | undefined;
  switch (identifier?.kind) {
    case 'id':
      owner = await deps.store.accounts.findById(identifier.id);
      break;
    case 'name':
      owner = await deps.store.accounts.findOne(
        { by: 'name', nameKey: nameKey(identifier.name), scope: await rootScope() },
        '.',
      );
      break;
    case 'email':
      owner = await deps.store.accounts.findOne(
        { by: 'email', emailKey: emailKey(identifier.email), scope: await rootScope() },
        '.',
      );
      break;
    case 'dna':
      owner = await deps.store.accounts.findOne({ by: 'dna', dna: identifier.dna }, '.');
      break;
    case 'filter':
    case undefined:
      break;
  }
  if (!owner || !owner.status || owner.suspended) {
    throw new AppError(ErrorCode.Unavailable, UNAVAILABLE, { reason: 'SIGN_OWNER is missing or disabled' });
  }
  if (owner.isRoot && deps.policy.tenancy === 'multi') {
    throw new AppError(ErrorCode.Unavailable, UNAVAILABLE, {
      reason: 'in multi-tenant mode SIGN_OWNER must name an account of a tenant, not root',
    });
  }
  return owner;
}

/** The owner whose mail settings send an account's mail (root and owners send their own). */
export function mailOwnerOf(account: AccountRecord): bigint {
  return account.ownerId ?? account.id;
}

export function signupUnavailable(reason: string, cause?: unknown): AppError {
  return new AppError(ErrorCode.Unavailable, UNAVAILABLE, { reason }, cause);
}
