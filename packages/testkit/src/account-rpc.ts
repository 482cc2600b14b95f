import { hashApiKey, usd, type GrpcServiceName } from '@gw/kit';
import type { accounts } from '@gw/proto';
import { uniqueName, type Created } from './api.js';
import type { StartedService } from './service.js';

/** A service started with accounts (itself, or `with: ['accounts']`). */
type WithAccounts = Pick<StartedService<GrpcServiceName>, 'clientOf' | 'rootKey'>;

/** Root's account id, as accounts knows it by root's key. */
export async function rootAccountId(service: WithAccounts): Promise<bigint> {
  const { account } = await service
    .clientOf('accounts')
    .authenticateKey({ keyHash: hashApiKey(service.rootKey) });
  if (!account) {
    throw new Error('accounts does not know the root key');
  }
  return account.id;
}

/**
 * Creates a subaccount through accounts' CreateAccount, as the edge's POST /x-users does: under
 * `parentId` (root by default), with `credit` USD (5 by default) and any other fields.
 */
export async function createAccountByRpc(
  service: WithAccounts,
  options: { parentId?: bigint; credit?: number; fields?: accounts.AccountFields } = {},
): Promise<Created> {
  const name = options.fields?.name ?? uniqueName();
  const created = await service.clientOf('accounts').createAccount({
    callerId: options.parentId ?? (await rootAccountId(service)),
    fields: { name, email: `${name}@example.com`, ...options.fields },
    creditGrantedNano: usd(options.credit ?? 5),
    idempotencyKey: '',
    ipAddress: '127.0.0.1',
    requestHash: '',
  });
  if (!created.account) {
    throw new Error(`create ${name} answered no account`);
  }
  return { id: Number(created.account.id), key: created.secretKey, name, dna: created.account.dna };
}
