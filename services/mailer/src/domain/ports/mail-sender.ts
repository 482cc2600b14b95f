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
