import { nanoToUsd } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import { idempotencyOf, markReplay } from '../../idempotency.js';
import type { Route } from '../../route.js';
import { deleteUserResponse, IDENTIFIER_PARAM } from '../schemas.js';

/** DELETE /x-users/{identifier}: parent or owner only; the remainder minus the fee goes to the parent. */
export const deleteUser: Route = {
  method: 'delete',
  path: '/x-users/:identifier',
  access: 'user',
  doc: {
    summary: 'Delete a subaccount; its remainder goes to the parent',
    tag: 'accounts',
    params: IDENTIFIER_PARAM,
    response: deleteUserResponse,
    errors: [404, 409],
  },
  async handle(deps, req, res) {
    const caller = callerOf(res);
    const deleted = await deps.accounts.deleteAccount({
      callerId: caller.id,
      identifier: String(req.params.identifier),
      ...idempotencyOf(req),
      ipAddress: req.ip ?? '',
    });
    // The key dies here at once; gw.account.changed does the same on every other replica.
    deps.cache.invalidateAccount(deleted.id);
    markReplay(res, deleted.replayed);
    res.json({
      Action: 'delete',
      User: {
        ID: Number(deleted.id),
        Name: deleted.name,
        RefundedBalance: nanoToUsd(deleted.refundedNano),
        TransactionFee: nanoToUsd(deleted.feeNano),
        DebtTransferred: nanoToUsd(deleted.debtMovedNano),
      },
      message: `account ${deleted.name} deleted; ${nanoToUsd(deleted.refundedNano)} USD refunded to the parent after a ${nanoToUsd(deleted.feeNano)} USD fee${deleted.debtMovedNano > 0n ? `; the parent took over ${nanoToUsd(deleted.debtMovedNano)} USD of unpaid usage` : ''}`,
    });
  },
};
