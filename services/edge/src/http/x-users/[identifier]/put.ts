import { nanoToUsd } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import { idempotencyOf, markReplay } from '../../idempotency.js';
import { managementView } from '../../account-views.js';
import { parseInput, type Route } from '../../route.js';
import { toAccountFields, toNano } from '../fields.js';
import { IDENTIFIER_PARAM, updateUserBody, updateUserResponse } from '../schemas.js';

/** PUT or POST /x-users/{identifier}: update fields, recharge (positive CreditGranted) or claw back. */
export function updateUserRoute(method: 'put' | 'post'): Route {
  return {
    method,
    path: '/x-users/:identifier',
    access: 'user',
    doc: {
      summary: 'Update, recharge or claw back a subaccount',
      tag: 'accounts',
      params: IDENTIFIER_PARAM,
      body: updateUserBody,
      response: updateUserResponse,
      errors: [404, 409],
    },
    async handle(deps, req, res) {
      const body = parseInput(updateUserBody, req.body);
      const caller = callerOf(res);
      const credit = toNano('CreditGranted', body.CreditGranted);
      const updated = await deps.accounts.updateAccount({
        callerId: caller.id,
        identifier: String(req.params.identifier),
        creditGrantedNano: credit,
        days: body.Days,
        ...idempotencyOf(req),
        ipAddress: req.ip ?? '',
        fields: toAccountFields(body),
      });
      if (!updated.account) {
        throw new Error('accounts answered without an account');
      }
      // This replica drops the cached entry now; the event does the same on every other one.
      deps.cache.invalidateAccount(updated.account.id);
      markReplay(res, updated.replayed);
      const view = managementView(updated.account);
      res.json({
        Action: 'update',
        User: credit === undefined ? view : { ...view, CreditGranted: nanoToUsd(credit) },
      });
    },
  };
}

export const putUser = updateUserRoute('put');
export const postUser = updateUserRoute('post');
