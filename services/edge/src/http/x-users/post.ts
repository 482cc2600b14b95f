import { AppError, ErrorCode, nanoToUsd, parseUsd } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import { idempotencyOf, markReplay } from '../idempotency.js';
import { managementView } from '../render.js';
import { parseBody, type Route } from '../route.js';
import { createUserBody } from './schemas.js';

export function toNano(field: string, amount: number | undefined): bigint | undefined {
  if (amount === undefined) {
    return undefined;
  }
  try {
    return parseUsd(amount);
  } catch {
    throw new AppError(ErrorCode.InvalidRequest, `${field}: must be a USD amount with at most 9 decimals`, { field });
  }
}

/** POST /x-users: create a subaccount funded by the caller. */
export const postUsers: Route = {
  method: 'post',
  path: '/x-users',
  access: 'user',
  async handle(deps, req, res) {
    const body = parseBody(createUserBody, req.body);
    const caller = callerOf(res);
    const credit = toNano('CreditGranted', body.CreditGranted) ?? 0n;
    const created = await deps.accounts.createAccount({
      callerId: caller.id,
      creditGrantedNano: credit,
      days: body.Days,
      ...idempotencyOf(req),
      ipAddress: req.ip ?? '',
      fields: {
        name: body.Name,
        email: body.Email,
        alias: body.Alias,
        billingEmail: body.BillingEmail,
        rates: body.Rates,
        hardLimitNano: toNano('HardLimit', body.HardLimit),
        softLimitNano: toNano('SoftLimit', body.SoftLimit),
        autoQuotaNano: toNano('AutoQuota', body.AutoQuota),
        rpm: body.RPM === undefined ? undefined : BigInt(body.RPM),
        rph: body.RPH === undefined ? undefined : BigInt(body.RPH),
        rpd: body.RPD === undefined ? undefined : BigInt(body.RPD),
        tpm: body.TPM === undefined ? undefined : BigInt(body.TPM),
        tph: body.TPH === undefined ? undefined : BigInt(body.TPH),
        tpd: body.TPD === undefined ? undefined : BigInt(body.TPD),
        allowIps: body.AllowIPs,
        allowModels: body.AllowModels,
        allowLevels: body.AllowLevels,
        resources: body.Resources,
        modelLimitsJson: body.ModelLimits === undefined ? undefined : JSON.stringify(body.ModelLimits),
      },
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
