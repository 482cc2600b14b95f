import type { MailQueue } from '@gw/kit';
import type { SpendAlerts } from '../../domain/ports/deps.js';

/** The alert job the mailer sends; its jobId makes a second enqueue of the same month a no-op. */
export const SOFT_LIMIT_JOB = 'soft-limit-alert';

export function softLimitJobId(accountId: bigint, month: string): string {
  return `soft-limit-${accountId}-${month}`;
}

/** SoftLimit alerts as jobs on the `mail` queue, one per account and month. */
export function mailSpendAlerts(mail: MailQueue): SpendAlerts {
  return {
    async softLimitReached(accountId, month) {
      await mail.enqueue(
        SOFT_LIMIT_JOB,
        { kind: 'soft_limit', accountId: String(accountId), month },
        softLimitJobId(accountId, month),
      );
    },
  };
}
