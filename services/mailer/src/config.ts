import {
  databaseEnv,
  env,
  grpcServiceEnv,
  loadConfig,
  mailQueueEnv,
  secretKeyEnv,
  selfAddressEnv,
  tenantPrivateEnv,
} from '@gw/kit';
import { z } from 'zod';

const shape = {
  ...grpcServiceEnv('mailer'),
  ...databaseEnv,
  /** Every <SERVICE>_ADDR (ACCOUNTS_ADDR and CONFIG_ADDR are dialled), GW_EDGE_PORT, GW_PUBLIC_URL, GW_SELF_HOSTS. */
  ...selfAddressEnv,
  /** Loopback and private ranges tenant owners may use as upstream or mail server (docs/decisions.md §7). */
  ...tenantPrivateEnv,
  ...mailQueueEnv,
  /** Opens the sealed parts of signup jobs (codes, tokens, new keys). */
  GW_SECRET_KEY: secretKeyEnv,
  /** SMTP server for owners without EMAIL_SMTP: smtp://user:pass@host:587 or smtps://…:465. */
  MAIL_SMTP_URL: z
    .string()
    .optional()
    .refine(
      (value) => !value || (URL.canParse(value) && /^smtps?:$/.test(new URL(value).protocol)),
      'must be an smtp:// or smtps:// URL',
    )
    .transform((value) => value || undefined),
  /** Sender for owners without SVC_MAIL (default no-reply@ the public host). */
  MAIL_FROM: z
    .string()
    .max(320)
    .optional()
    .transform((value) => value || undefined),
  /** Links of the welcome mail (default GW_PUBLIC_URL + /docs, the API reference, and + /console/). */
  MAIL_DOCS_URL: env.optionalUrl(),
  MAIL_MANAGE_URL: env.optionalUrl(),
  /** Jobs sent at once by one mailer process. */
  MAIL_CONCURRENCY: env.integer(4, { min: 1, max: 64 }),
};

export function loadMailerConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
