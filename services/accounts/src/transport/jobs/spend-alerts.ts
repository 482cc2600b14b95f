import { MAIL_JOBS, type MailQueue } from '@gw/kit';
import type { SpendAlerts } from '../../domain/ports/deps.js';

export function softLimitJobId(accountId: bigint, month: string): string {
  return `soft-limit-${accountId}-${month}`;
}

/**
 * SoftLimit alerts as jobs on the `mail` queue, one per account and month: the jobId makes a
 * second enqueue of the same month a no-op; billing notices (AutoQuota) the same way.
 */
export function mailSpendAlerts(mail: MailQueue): SpendAlerts {
  return {
    async softLimitReached(accountId, month) {
      await mail.enqueue(
        MAIL_JOBS.softLimit,
        { kind: 'soft_limit', accountId: String(accountId), month },
        softLimitJobId(accountId, month),
      );
    },
    async billingNotice(accountId, subject, text, jobKey) {
      await mail.enqueue(
        MAIL_JOBS.billingNotice,
        { kind: 'billing_notice', accountId: String(accountId), subject, text },
        jobKey,
      );
    },
  };
}
