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

/** How one message leaves: an SMTP server (the owner's or the environment's) or an .eml file. */
export type MailRoute =
  | {
      kind: 'smtp';
      source: 'owner-smtp' | 'env-smtp';
      host: string;
      port: number;
      /** Implicit TLS (EMAIL_TLS); otherwise STARTTLS when the server offers it. */
      secure: boolean;
      user: string;
      pass: string;
      /** Root's settings may name loopback and private addresses (docs/decisions.md §7). */
      rootPolicy: boolean;
    }
  | { kind: 'eml' };

export interface OutgoingMail {
  /** Stable per job, so a resend after a crash is recognisable as the same message. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type SendResult =
  | { ok: true; where: string }
  /** `error` in our own words (never the server's text); permanent: retrying cannot help. */
  | { ok: false; permanent: boolean; error: string };

export interface MailSender {
  send(route: MailRoute, mail: OutgoingMail): Promise<SendResult>;
}

export type DeliveryStatus = 'sent' | 'written' | 'retrying' | 'dead';

export interface DeliveryEntry {
  jobId: string;
  template: string;
  recipient: string;
  ownerId: bigint | null;
  attempt: number;
  status: DeliveryStatus;
  transport: string;
  error: string;
}

export interface DeliveryLog {
  record(entry: DeliveryEntry): Promise<void>;
  list(filter: { recipient?: string; jobId?: string }): Promise<Array<DeliveryEntry & { at: Date }>>;
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
