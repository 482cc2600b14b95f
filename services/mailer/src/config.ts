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

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...grpcServiceEnv('mailer'),
  ...databaseEnv,
  // The gateway's own endpoints, never a mail server; ACCOUNTS_ADDR and CONFIG_ADDR are dialled.
  ...selfAddressEnv,
  ...tenantPrivateEnv,
  ...mailQueueEnv,
  GW_SECRET_KEY: secretKeyEnv.describe(
    'Opens the sealed parts of signup jobs (codes, tokens, new keys): 64 hex digits.',
  ),
  MAIL_SMTP_URL: z
    .string()
    .optional()
    .refine(
      (value) => !value || (URL.canParse(value) && /^smtps?:$/.test(new URL(value).protocol)),
      'must be an smtp:// or smtps:// URL',
    )
    .transform((value) => value || undefined)
    .describe('SMTP server for owners without EMAIL_SMTP: smtp://user:pass@host:587 or smtps://…:465.'),
  MAIL_FROM: z
    .string()
    .max(320)
    .optional()
    .transform((value) => value || undefined)
    .describe('Sender for owners without SVC_MAIL; unset: no-reply@ the public host.'),
  MAIL_DOCS_URL: env
    .optionalUrl()
    .describe("The welcome mail's link to the API reference; unset: GW_PUBLIC_URL + /docs."),
  MAIL_MANAGE_URL: env
    .optionalUrl()
    .describe("The welcome mail's link to the console; unset: GW_PUBLIC_URL + /console/."),
  MAIL_CONCURRENCY: env.integer(4, { min: 1, max: 64 }).describe('Jobs sent at once by one mailer process.'),
};

export function loadMailerConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
