/**
 * An owner's mail server (EMAIL_SMTP, EMAIL_PORT) follows the Provider address rule
 * (docs/decisions.md §7, `upstream-host.ts`): config checks it when the values are saved, the
 * mailer again on every connection, with every address the name resolves to then.
 */

/** EMAIL_PORT when unset: 465 for implicit TLS (EMAIL_TLS true), else 587 (submission). */
export function mailServerPort(port: string | undefined, tls: boolean): number {
  return port && /^\d{1,5}$/.test(port) ? Number(port) : tls ? 465 : 587;
}
