import { type MailJobData, type VerificationSecret } from '@gw/kit';
import type { MailerDeps } from './ports/deps.js';
import {
  billingNoticeMail,
  keyAuthMail,
  softLimitMail,
  verificationMail,
  welcomeMail,
  type Rendered,
} from './templates.js';

/** A job turned into a message for one recipient, sent with one owner's settings. */
export interface PreparedMail {
  template: string;
  to: string;
  ownerId: bigint;
  ownerIsRoot: boolean;
  rendered: Rendered;
}

/** A job that can never be sent (its account is gone, its secret cannot be opened). */
export class UnsendableMail extends Error {
  constructor(
    message: string,
    readonly recipient = '',
  ) {
    super(message);
    this.name = 'UnsendableMail';
  }
}

async function contactOf(deps: MailerDeps, accountId: string) {
  const contact = await deps.contacts.contact(BigInt(accountId));
  if (!contact) {
    throw new UnsendableMail(`account ${accountId} no longer exists`);
  }
  return contact;
}

function openSecret(deps: MailerDeps, sealed: string, jobId: string, recipient: string): string {
  const secret = deps.sealed.open(sealed, jobId);
  if (secret === undefined) {
    throw new UnsendableMail(
      'the sealed part of the job cannot be opened (GW_SECRET_KEY changed?)',
      recipient,
    );
  }
  return secret;
}

function link(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/**
 * Resolves the recipient and renders the message of one job: the verification and welcome mails
 * to the signing-up address, SoftLimit and billing notices to the account's BillingEmail, the
 * key-auth alert to the owner's Email.
 */
export async function prepareMail(deps: MailerDeps, jobId: string, data: MailJobData): Promise<PreparedMail> {
  const { policy } = deps;
  switch (data.kind) {
    case 'verification': {
      const owner = await contactOf(deps, data.ownerId);
      const secret = JSON.parse(openSecret(deps, data.sealed, jobId, data.email)) as VerificationSecret;
      const activate = link(policy.publicUrl, `/x-sign/activate?token=${encodeURIComponent(secret.token)}`);
      return {
        template: 'verification',
        to: data.email,
        ownerId: owner.ownerId,
        ownerIsRoot: owner.ownerIsRoot,
        rendered: verificationMail(secret.code, activate),
      };
    }
    case 'welcome': {
      const account = await contactOf(deps, data.accountId);
      const key = openSecret(deps, data.sealed, jobId, account.email);
      return {
        template: 'welcome',
        to: account.email,
        ownerId: account.ownerId,
        ownerIsRoot: account.ownerIsRoot,
        rendered: welcomeMail(account.name, key, {
          service: policy.publicUrl,
          docs: policy.docsUrl,
          api: link(policy.publicUrl, '/v1'),
          manage: policy.manageUrl,
        }),
      };
    }
    case 'soft_limit': {
      const account = await contactOf(deps, data.accountId);
      return {
        template: 'soft_limit',
        to: account.billingEmail,
        ownerId: account.ownerId,
        ownerIsRoot: account.ownerIsRoot,
        rendered: softLimitMail(account.name, account.softLimitNano, data.month),
      };
    }
    case 'key_auth_failed': {
      const owner = await contactOf(deps, data.ownerId);
      return {
        template: 'key_auth_failed',
        to: owner.email,
        ownerId: owner.ownerId,
        ownerIsRoot: owner.ownerIsRoot,
        rendered: keyAuthMail(data.keyId),
      };
    }
    case 'billing_notice': {
      const account = await contactOf(deps, data.accountId);
      return {
        template: 'billing_notice',
        to: account.billingEmail,
        ownerId: account.ownerId,
        ownerIsRoot: account.ownerIsRoot,
        rendered: billingNoticeMail(data.subject, data.text),
      };
    }
  }
}
