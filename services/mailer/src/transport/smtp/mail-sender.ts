import { mkdir, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import {
  normalizeHost,
  refuseUpstreamHost,
  refuseResolvedAddresses,
  resolveAddresses,
  type AddressList,
  type Logger,
  type SelfAddresses,
} from '@gw/kit';
import nodemailer from 'nodemailer';
import type { MailRoute, MailSender, OutgoingMail, SendResult } from '../../domain/ports/mail-sender.js';

type SmtpRoute = Extract<MailRoute, { kind: 'smtp' }>;

const RESOLVE_TIMEOUT_MS = 2_000;

interface SmtpFailure {
  code?: string;
  responseCode?: number;
}

/**
 * A failed send in our own words with the SMTP status code: a remote server's banner or error
 * text is never repeated (not to the log, not to anyone who reads the delivery log).
 */
export function describeSmtpFailure(error: unknown): Extract<SendResult, { ok: false }> {
  const { code = '', responseCode } = (error ?? {}) as SmtpFailure;
  if (code === 'EAUTH') {
    return {
      ok: false,
      permanent: true,
      error: `the mail server refused the login${responseCode ? ` (${responseCode})` : ''}`,
    };
  }
  if (typeof responseCode === 'number' && responseCode >= 500) {
    return { ok: false, permanent: true, error: `the mail server rejected the message (${responseCode})` };
  }
  if (typeof responseCode === 'number' && responseCode >= 400) {
    return { ok: false, permanent: false, error: `the mail server deferred the message (${responseCode})` };
  }
  if (code === 'ETIMEDOUT') {
    return { ok: false, permanent: false, error: 'the mail server did not answer in time' };
  }
  if (code === 'ETLS') {
    return { ok: false, permanent: false, error: 'the TLS handshake with the mail server failed' };
  }
  if (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'ECONNREFUSED') {
    return { ok: false, permanent: false, error: 'could not connect to the mail server' };
  }
  return { ok: false, permanent: false, error: 'sending to the mail server failed' };
}

/**
 * The address to connect to: the host checked under the address rule (docs/decisions.md §7),
 * then every address its name resolves to now (DNS rebinding); the connection goes to the
 * checked address, so nothing can change in between.
 */
async function checkedAddress(
  route: SmtpRoute,
  network: Pick<MailSenderOptions, 'self' | 'tenantPrivate'>,
): Promise<string | SendResult> {
  const policy = { rootPool: route.rootPolicy, self: network.self, tenantPrivate: network.tenantPrivate };
  const host = normalizeHost(route.host);
  const refused = refuseUpstreamHost(host, route.port, policy);
  if (refused) {
    return { ok: false, permanent: true, error: `the mail server address is refused: ${refused}` };
  }
  if (isIP(host) !== 0) {
    return host;
  }
  const addresses = await resolveAddresses(host, RESOLVE_TIMEOUT_MS);
  const first = addresses?.[0];
  if (!addresses || first === undefined) {
    return { ok: false, permanent: false, error: 'the mail server name does not resolve' };
  }
  const refusedAddress = refuseResolvedAddresses(addresses, route.port, policy);
  return refusedAddress
    ? { ok: false, permanent: true, error: `the mail server address is refused: ${refusedAddress}` }
    : first;
}

export interface MailSenderOptions {
  self: SelfAddresses;
  /** Loopback and private ranges a tenant owner's mail server may use (GW_TENANT_PRIVATE_CIDRS). */
  tenantPrivate: AddressList;
  /** Where .eml files go when no SMTP server is configured. */
  emlDir: string;
  /** The name this side gives in EHLO. */
  heloName: string;
  log: Logger;
}

/** nodemailer behind the MailSender port: SMTP with the address rule at connect time, or .eml. */
export function mailSender(options: MailSenderOptions): MailSender {
  const message = (mail: OutgoingMail) => ({
    messageId: mail.messageId,
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
  });

  async function writeEml(mail: OutgoingMail): Promise<SendResult> {
    const built = await nodemailer
      .createTransport({ streamTransport: true, buffer: true })
      .sendMail(message(mail));
    await mkdir(options.emlDir, { recursive: true });
    const file = join(options.emlDir, `${Date.now()}-${mail.messageId.replace(/[^A-Za-z0-9.-]/g, '')}.eml`);
    await writeFile(file, built.message as Buffer, { mode: 0o600 });
    options.log.warn({ file }, 'no SMTP server configured: mail written as an .eml file, not sent');
    return { ok: true, where: file };
  }

  async function sendSmtp(route: SmtpRoute, mail: OutgoingMail): Promise<SendResult> {
    const address = await checkedAddress(route, options);
    if (typeof address !== 'string') {
      return address;
    }
    const host = normalizeHost(route.host);
    const transport = nodemailer.createTransport({
      host: address,
      port: route.port,
      secure: route.secure,
      auth: route.user ? { user: route.user, pass: route.pass } : undefined,
      // Certificates are checked against the configured name, not the address dialled.
      tls: isIP(host) === 0 ? { servername: host } : {},
      name: options.heloName,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    try {
      await transport.sendMail(message(mail));
      return { ok: true, where: route.source };
    } catch (error) {
      return describeSmtpFailure(error);
    } finally {
      transport.close();
    }
  }

  return {
    send: (route, mail) => (route.kind === 'eml' ? writeEml(mail) : sendSmtp(route, mail)),
  };
}
