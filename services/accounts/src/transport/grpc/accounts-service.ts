import { AppError, ErrorCode, type AsyncHandlers } from '@gw/kit';
import { accounts as pb } from '@gw/proto';

const { Reach } = pb;
import { authenticateKey } from '../../domain/authenticate-key.js';
import { createAccount } from '../../domain/create-account.js';
import { getAccount } from '../../domain/get-account.js';
import type { AccountsDeps } from '../../domain/ports.js';
import { rotateKey } from '../../domain/rotate-key.js';
import { fromProtoFields, toProtoAccount } from './mappers.js';

function notInThisRelease(rpc: string): never {
  // Declared in the contract for the accounts issue; answering a clear error keeps callers honest.
  throw new AppError(ErrorCode.Unavailable, `${rpc} is not available yet`);
}

/** Thin gRPC adapter: decode, call one operation, encode. Errors map in the kit's server. */
export function accountsHandlers(deps: AccountsDeps): AsyncHandlers<pb.AccountsServiceServer> {
  return {
    authenticateKey: async (request) => ({ account: toProtoAccount(await authenticateKey(deps, request.keyHash)) }),
    getAccount: async (request) => ({
      account: toProtoAccount(
        await getAccount(deps, {
          callerId: request.callerId,
          identifier: request.identifier,
          includeSelf: request.reach === Reach.REACH_SELF_OR_DESCENDANTS,
        }),
      ),
    }),
    createAccount: async (request) => {
      const created = await createAccount(deps, {
        callerId: request.callerId,
        fields: fromProtoFields(request.fields),
        creditGrantedNano: request.creditGrantedNano,
        days: request.days,
        idempotencyKey: request.idempotencyKey,
      });
      return { account: toProtoAccount(created), secretKey: created.secretKey };
    },
    rotateKey: async (request) => {
      const rotated = await rotateKey(deps, {
        callerId: request.callerId,
        confirm: request.confirm,
        key: request.key,
        root: request.root,
      });
      return { id: rotated.id, name: rotated.name, key: rotated.key, rotatedAt: rotated.rotatedAt.toISOString() };
    },
    listAccounts: () => notInThisRelease('ListAccounts'),
    updateAccount: () => notInThisRelease('UpdateAccount'),
    deleteAccount: () => notInThisRelease('DeleteAccount'),
    transfer: () => notInThisRelease('Transfer'),
    debit: () => notInThisRelease('Debit'),
  };
}
