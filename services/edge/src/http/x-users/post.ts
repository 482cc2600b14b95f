import { nanoToUsd } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import { idempotencyOf, markReplay } from '../idempotency.js';
import { managementView } from '../account-views.js';
import { parseInput, type Route } from '../route.js';
import { toAccountFields, toNano } from './fields.js';
import { createUserBody, createUserResponse } from './schemas.js';

/** POST /x-users: create a subaccount funded by the caller. */
export const postUsers: Route = {
  method: 'post',
  path: '/x-users',
  access: 'user',
  doc: {
    summary: 'Create a subaccount funded by the caller',
    tag: 'accounts',
    body: createUserBody,
    response: createUserResponse,
    errors: [409],
  },
  async handle(deps, req, res) {
    const body = parseInput(createUserBody, req.body);
    const caller = callerOf(res);
    const credit = toNano('CreditGranted', body.CreditGranted) ?? 0n;
    const created = await deps.accounts.createAccount({
      callerId: caller.id,
      creditGrantedNano: credit,
      days: body.Days,
      ...idempotencyOf(req),
      ipAddress: req.ip ?? '',
      fields: toAccountFields(body),
    });
    if (!created.account) {
      throw new Error('accounts answered without an account');
    }
    const view = managementView(created.account);
    markReplay(res, created.replayed);
    res.json({
      Action: 'add',
      User: {
        ID: view.ID,
        SecretKey: created.secretKey,
        Updates: { ...view, CreditGranted: nanoToUsd(credit) },
      },
    });
  },
};
