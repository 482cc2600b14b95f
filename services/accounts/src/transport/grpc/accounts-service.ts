import { currentRequestId, type AsyncHandlers } from '@gw/kit';
import { accounts as pb } from '@gw/proto';
import { authenticateKey } from '../../domain/authenticate-key.js';
import { createAccount } from '../../domain/create-account.js';
import { checkConservation, type ConservationTotals } from '../../domain/check-conservation.js';
import { debit } from '../../domain/debit.js';
import { getChargeRates } from '../../domain/get-charge-rates.js';
import { debitBatch, type DebitItemOutcome } from '../../domain/debit-batch.js';
import { listOperations } from '../../domain/list-operations.js';
import { deleteAccount } from '../../domain/delete-account.js';
import { listAccounts } from '../../domain/list-accounts.js';
import { updateAccount } from '../../domain/update-account.js';
import { getAccount } from '../../domain/get-account.js';
import { rotateKey } from '../../domain/rotate-key.js';
import { recordKeyUse } from '../../domain/record-key-use.js';
import { transferCredit } from '../../domain/transfer-credit.js';
import type { SignupDeps } from '../../domain/ports/signup.js';
import { fromProtoFields, toProtoAccount } from './mappers.js';
import { signupHandlers } from './signup-service.js';

const { Reach, DebitOutcome } = pb;

const DEBIT_OUTCOMES: Record<DebitItemOutcome, pb.DebitOutcome> = {
  charged: DebitOutcome.DEBIT_OUTCOME_CHARGED,
  replayed: DebitOutcome.DEBIT_OUTCOME_REPLAYED,
  conflict: DebitOutcome.DEBIT_OUTCOME_CONFLICT,
  no_account: DebitOutcome.DEBIT_OUTCOME_NO_ACCOUNT,
};

function toProtoTotals(totals: ConservationTotals): pb.ConservationTotals {
  return {
    ownerId: totals.ownerId,
    mintedNano: totals.mintedNano,
    transfersInNano: totals.transfersInNano,
    balancesNano: totals.balancesNano,
    usageNano: totals.usageNano,
    feesNano: totals.feesNano,
    expiredNano: totals.expiredNano,
    differenceNano: totals.differenceNano,
  };
}

/** Thin gRPC adapter: decode, call one operation, encode. Errors map in the kit's server. */
export function accountsHandlers(deps: SignupDeps): AsyncHandlers<pb.AccountsServiceServer> {
  return {
    ...signupHandlers(deps),
    authenticateKey: async (request) => ({
      account: toProtoAccount(await authenticateKey(deps, request.keyHash)),
    }),
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
        requestHash: request.requestHash,
        ipAddress: request.ipAddress,
      });
      return { account: toProtoAccount(created), secretKey: created.secretKey, replayed: created.replayed };
    },
    listAccounts: async (request) => {
      const filter = request.filter;
      const listed = await listAccounts(deps, {
        callerId: request.callerId,
        reach: request.reach === Reach.REACH_CHILDREN ? 'children' : 'descendants',
        filter: {
          id: filter?.id,
          name: filter?.name,
          email: filter?.email,
          level: filter?.level,
          dna: filter?.dna,
          identifier: filter?.identifier,
        },
        page: request.page,
        size: request.size,
        order: request.order,
      });
      return {
        accounts: listed.views.map(toProtoAccount),
        total: BigInt(listed.total),
        page: listed.page,
        size: listed.size,
      };
    },
    updateAccount: async (request) => {
      const updated = await updateAccount(deps, {
        callerId: request.callerId,
        identifier: request.identifier,
        fields: fromProtoFields(request.fields),
        creditGrantedNano: request.creditGrantedNano,
        days: request.days,
        idempotencyKey: request.idempotencyKey,
        requestHash: request.requestHash,
        requestId: currentRequestId(),
        ipAddress: request.ipAddress,
      });
      return { account: toProtoAccount(updated), replayed: updated.replayed };
    },
    deleteAccount: async (request) => {
      const deleted = await deleteAccount(deps, {
        callerId: request.callerId,
        identifier: request.identifier,
        idempotencyKey: request.idempotencyKey,
        requestHash: request.requestHash,
        ipAddress: request.ipAddress,
      });
      return {
        id: deleted.id,
        name: deleted.name,
        refundedNano: deleted.refundedNano,
        feeNano: deleted.feeNano,
        replayed: deleted.replayed,
        debtMovedNano: deleted.debtMovedNano,
      };
    },
    debit: async (request) => {
      const charged = await debit(deps, {
        accountId: request.accountId,
        amountNano: request.amountNano,
        idempotencyKey: request.idempotencyKey,
        requireCover: request.requireCover,
      });
      return {
        ledgerId: String(charged.ledgerId),
        balanceNano: charged.balanceNano,
        spendBlocked: charged.spendBlocked,
        replayed: charged.replayed,
      };
    },
    debitBatch: async (request) => {
      const results = await debitBatch(deps, request.items);
      return {
        results: results.map((result) => ({
          idempotencyKey: result.idempotencyKey,
          outcome: DEBIT_OUTCOMES[result.outcome],
          chargedAccountId: result.chargedAccountId,
        })),
      };
    },
    getChargeRates: async (request) => {
      const rates = await getChargeRates(deps, request.accountIds);
      return {
        rates: rates.map((entry) => ({ accountId: entry.id, rates: entry.rates, factor: entry.factor })),
      };
    },
    rotateKey: async (request) => {
      const rotated = await rotateKey(deps, {
        callerId: request.callerId,
        confirm: request.confirm,
        key: request.key,
        root: request.root,
        ipAddress: request.ipAddress,
      });
      return {
        id: rotated.id,
        name: rotated.name,
        key: rotated.key,
        rotatedAt: rotated.rotatedAt.toISOString(),
      };
    },
    recordKeyUse: async (request) => ({
      recorded: await recordKeyUse(
        deps,
        request.uses.map((use) => ({
          accountId: use.accountId,
          keyHash: use.keyHash,
          usedAt: new Date(use.usedAt),
        })),
      ),
    }),
    transfer: (request) =>
      transferCredit(deps, {
        callerId: request.callerId,
        identifier: request.identifier,
        amountNano: request.amountNano,
        days: request.days,
        idempotencyKey: request.idempotencyKey,
        requestId: currentRequestId(),
      }),
    listOperations: async (request) => {
      const listed = await listOperations(deps, {
        callerId: request.callerId,
        page: request.page,
        size: request.size,
        action: request.action,
        targetType: request.targetType,
        targetId: request.targetId,
        status: request.status,
      });
      return { entries: listed.entries, total: BigInt(listed.total), page: listed.page, size: listed.size };
    },
    checkConservation: async (request) => {
      const checked = await checkConservation(deps, request.callerId);
      return { overall: toProtoTotals(checked.overall), owners: checked.owners.map(toProtoTotals) };
    },
  };
}
