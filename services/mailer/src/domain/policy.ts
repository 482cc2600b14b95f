import { mailServerPort } from '@gw/kit';
import type { MailerPolicy } from './ports/deps.js';

/** The environment's mail policy: links from the public URL, MAIL_SMTP_URL, the default sender. */
export function mailerPolicy(input: {
  publicUrl: string;
  docsUrl: string | undefined;
  manageUrl: string | undefined;
  smtpUrl: string | undefined;
  from: string | undefined;
}): MailerPolicy {
  const base = input.publicUrl.replace(/\/+$/, '');
  const smtp = input.smtpUrl ? new URL(input.smtpUrl) : undefined;
  const secure = smtp?.protocol === 'smtps:';
  return {
    publicUrl: base,
    docsUrl: input.docsUrl ?? `${base}/docs`,
    manageUrl: input.manageUrl ?? `${base}/console/`,
    envSmtp: smtp && {
      kind: 'smtp',
      source: 'env-smtp',
      host: smtp.hostname,
      port: mailServerPort(smtp.port || undefined, secure),
      secure,
      user: decodeURIComponent(smtp.username),
      pass: decodeURIComponent(smtp.password),
      // The operator's own server: the root rule (loopback and private allowed, never the gateway).
      rootPolicy: true,
    },
    defaultFrom: input.from ?? `no-reply@${new URL(base).hostname || 'localhost'}`,
  };
}
