import { MAIL_JOBS, type MailQueue } from '@gw/kit';
import type { OwnerAlerts } from '../../domain/ports/owner-alerts.js';

/** One alert per key per sleep of the longest step (30 min), however many replicas see it fail. */
const ALERT_WINDOW_MS = 30 * 60_000;

export function keyAuthJobId(ownerId: string, keyId: string, now: number): string {
  return `key-auth-${ownerId}-${keyId}-${Math.floor(now / ALERT_WINDOW_MS)}`;
}

/** Owner alerts as jobs on the `mail` queue; the mailer resolves the owner's address. */
export function mailOwnerAlerts(mail: MailQueue, now: () => number = Date.now): OwnerAlerts {
  return {
    async keyAuthFailed(ownerId, keyId) {
      await mail.enqueue(
        MAIL_JOBS.keyAuth,
        { kind: 'key_auth_failed', ownerId, keyId },
        keyAuthJobId(ownerId, keyId, now()),
      );
    },
  };
}
