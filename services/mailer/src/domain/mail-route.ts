import { mailServerPort } from '@gw/kit';
import type { MailerPolicy } from './ports/deps.js';
import type { MailRoute } from './ports/mail-sender.js';

/**
 * How an owner's mail leaves: its own EMAIL_* server when EMAIL_SMTP is set, else the
 * environment's MAIL_SMTP_URL, else an .eml file under the data folder. The sender is the
 * owner's SVC_MAIL, else MAIL_FROM.
 */
export function mailRouteOf(
  values: Record<string, string>,
  ownerIsRoot: boolean,
  policy: MailerPolicy,
): MailRoute {
  const host = values.EMAIL_SMTP ?? '';
  if (host !== '') {
    const secure = values.EMAIL_TLS === 'true';
    return {
      kind: 'smtp',
      source: 'owner-smtp',
      host,
      port: mailServerPort(values.EMAIL_PORT, secure),
      secure,
      user: values.EMAIL_AUTH ?? '',
      pass: values.EMAIL_PASS ?? '',
      rootPolicy: ownerIsRoot,
    };
  }
  return policy.envSmtp ?? { kind: 'eml' };
}

export function senderOf(values: Record<string, string>, policy: MailerPolicy): string {
  return values.SVC_MAIL ?? policy.defaultFrom;
}
