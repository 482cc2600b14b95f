import { randomBytes } from 'node:crypto';
import { MAIL_JOBS, mailSealAad, type MailQueue, type SecretBox, type VerificationSecret } from '@gw/kit';
import type { SignupMail } from '../../domain/ports/signup.js';

/**
 * The signup mails as jobs on the `mail` queue. The code, the token and the API key travel
 * sealed with GW_SECRET_KEY and bound to their job id: Redis never holds them in plaintext, and
 * the mailer opens them only to send.
 */
export function queueSignupMail(mail: MailQueue, box: SecretBox): SignupMail {
  return {
    sendVerification({ ownerId, email, code, token }) {
      const jobId = `signup-verification-${randomBytes(12).toString('hex')}`;
      const secret: VerificationSecret = { code, token };
      return mail.enqueue(
        MAIL_JOBS.verification,
        {
          kind: 'verification',
          ownerId: String(ownerId),
          email,
          sealed: box.seal(JSON.stringify(secret), mailSealAad(jobId)),
        },
        jobId,
      );
    },
    sendWelcome({ accountId, secretKey }) {
      const jobId = `signup-welcome-${accountId}`;
      return mail.enqueue(
        MAIL_JOBS.welcome,
        { kind: 'welcome', accountId: String(accountId), sealed: box.seal(secretKey, mailSealAad(jobId)) },
        jobId,
      );
    },
  };
}
