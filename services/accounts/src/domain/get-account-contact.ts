import { AppError, ErrorCode } from '@gw/kit';
import type { AccountsDeps } from './ports/deps.js';

export interface AccountContact {
  accountId: bigint;
  name: string;
  email: string;
  billingEmail: string;
  /** The owner whose mail settings send this account's mail. */
  ownerId: bigint;
  ownerIsRoot: boolean;
  softLimitNano: bigint;
}

/** Where an account's mail goes (internal: the mailer), and whose mail settings send it. */
export async function getAccountContact(
  deps: Pick<AccountsDeps, 'store'>,
  accountId: bigint,
): Promise<AccountContact> {
  const account = await deps.store.accounts.findById(accountId);
  if (!account) {
    throw new AppError(ErrorCode.NotFound, 'no such account');
  }
  const ownerId = account.ownerId ?? account.id;
  const owner = ownerId === account.id ? account : await deps.store.accounts.findById(ownerId);
  return {
    accountId: account.id,
    name: account.name,
    email: account.email,
    billingEmail: account.billingEmail || account.email,
    ownerId,
    ownerIsRoot: owner?.isRoot ?? false,
    softLimitNano: account.softLimitNano,
  };
}
