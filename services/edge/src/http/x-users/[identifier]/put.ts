import { nanoToUsd } from '@gw/kit';
import { callerOf } from '../../../auth/authenticate.js';
import { idempotencyOf, markReplay } from '../../idempotency.js';
import { managementView } from '../../render.js';
import { parseBody, type Route } from '../../route.js';
import { toNano } from '../post.js';
import { updateUserBody } from '../schemas.js';

const big = (value: number | undefined) => (value === undefined ? undefined : BigInt(value));

/** PUT or POST /x-users/{identifier}: update fields, recharge (positive CreditGranted) or claw back. */
export function updateUserRoute(method: 'put' | 'post'): Route {
  return {
    method,
    path: '/x-users/:identifier',
    access: 'user',
    async handle(deps, req, res) {
      const body = parseBody(updateUserBody, req.body);
      const caller = callerOf(res);
      const credit = toNano('CreditGranted', body.CreditGranted);
      const updated = await deps.accounts.updateAccount({
        callerId: caller.id,
        identifier: String(req.params.identifier),
        creditGrantedNano: credit,
        days: body.Days,
        ...idempotencyOf(req),
        ipAddress: req.ip ?? '',
        fields: {
          name: body.Name,
          email: body.Email,
          alias: body.Alias,
          billingEmail: body.BillingEmail,
          qrCode: body.QRCode,
          status: body.Status,
          suspended: body.Suspended,
          rates: body.Rates,
          dailyLimitNano: toNano('DailyLimit', body.DailyLimit),
          hardLimitNano: toNano('HardLimit', body.HardLimit),
          softLimitNano: toNano('SoftLimit', body.SoftLimit),
          userLimitNano: toNano('UserLimit', body.UserLimit),
          autoQuotaNano: toNano('AutoQuota', body.AutoQuota),
          rpm: big(body.RPM),
          rph: big(body.RPH),
          rpd: big(body.RPD),
          tpm: big(body.TPM),
          tph: big(body.TPH),
          tpd: big(body.TPD),
          resources: body.Resources,
          allowIps: body.AllowIPs,
          allowModels: body.AllowModels,
          allowLevels: body.AllowLevels,
          modelMapper: body.ModelMapper,
          modelLimitsJson: body.ModelLimits === undefined ? undefined : JSON.stringify(body.ModelLimits),
          level: body.Level,
          role: body.Role,
          gear: body.Gear,
          tier: body.Tier,
          factor: body.Factor,
          levelMapper: body.LevelMapper,
        },
      });
      if (!updated.account) {
        throw new Error('accounts answered without an account');
      }
      // This replica drops the cached entry now; the event does the same on every other one.
      deps.cache.invalidateAccount(updated.account.id);
      markReplay(res, updated.replayed);
      const view = managementView(updated.account);
      res.json({ Action: 'update', User: credit === undefined ? view : { ...view, CreditGranted: nanoToUsd(credit) } });
    },
  };
}

export const putUser = updateUserRoute('put');
export const postUser = updateUserRoute('post');
