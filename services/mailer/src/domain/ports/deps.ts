import type { DeliveryLog } from './delivery-log.js';
import type { MailRoute, MailSender } from './mail-sender.js';

/** Where an account's mail goes and whose mail settings send it (from accounts). */
export interface Contact {
  accountId: bigint;
  name: string;
  email: string;
  billingEmail: string;
  ownerId: bigint;
  ownerIsRoot: boolean;
  softLimitNano: bigint;
}

export interface Contacts {
  /** undefined when the account no longer exists. */
  contact(accountId: bigint): Promise<Contact | undefined>;
}

/** The owner's configuration values (from config, EMAIL_PASS revealed). */
export interface OwnerSettings {
  values(ownerId: bigint): Promise<Record<string, string>>;
}

/** Opens the sealed part of a job (bound to its job id); undefined when it cannot. */
export interface Sealed {
  open(sealed: string, jobId: string): string | undefined;
}

/** The environment's part: links, the fallback SMTP server and sender. */
export interface MailerPolicy {
  publicUrl: string;
  docsUrl: string;
  manageUrl: string;
  /** MAIL_SMTP_URL parsed, when set. */
  envSmtp: Extract<MailRoute, { kind: 'smtp' }> | undefined;
  /** MAIL_FROM, else no-reply at the public host. */
  defaultFrom: string;
}

export interface MailerDeps {
  contacts: Contacts;
  settings: OwnerSettings;
  sealed: Sealed;
  sender: MailSender;
  log: DeliveryLog;
  policy: MailerPolicy;
}
