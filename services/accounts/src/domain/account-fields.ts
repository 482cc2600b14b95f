import { AddressList, AppError, ErrorCode } from '@gw/kit';
import type { AccountFields } from './create-account.js';

/** Amounts and rates that are limits: 0 means none, below 0 means nothing. */
const NON_NEGATIVE = [
  'hardLimitNano',
  'softLimitNano',
  'dailyLimitNano',
  'userLimitNano',
  'autoQuotaNano',
  'rpm',
  'rph',
  'rpd',
  'tpm',
  'tph',
  'tpd',
] as const satisfies ReadonlyArray<keyof AccountFields>;

/** The values of settable fields, checked alike on create and update. */
export function assertFieldValues(fields: AccountFields): void {
  for (const field of NON_NEGATIVE) {
    const value = fields[field];
    if (value !== undefined && value < 0n) {
      throw new AppError(ErrorCode.InvalidRequest, `${field} must not be negative`);
    }
  }
  if (fields.rates !== undefined && !(Number.isFinite(fields.rates) && fields.rates > 0)) {
    throw new AppError(ErrorCode.InvalidRequest, 'Rates must be a positive number');
  }
  if (fields.allowIps !== undefined) {
    const parsed = AddressList.parse(fields.allowIps);
    if ('invalid' in parsed) {
      throw new AppError(
        ErrorCode.InvalidRequest,
        `AllowIPs: "${parsed.invalid}" is neither an IP address nor a CIDR`,
        { field: 'allowIps' },
      );
    }
  }
}
