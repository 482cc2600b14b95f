import { z } from 'zod';

/**
 * The jobs of the `mail` queue: their names and data, shared by every service that enqueues and
 * by the mailer that sends. NEVER rename a value: jobs waiting in Redis keep the name they were
 * added with.
 */
export const MAIL_JOBS = {
  verification: 'signup-verification',
  welcome: 'signup-welcome',
  softLimit: 'soft-limit-alert',
  keyAuth: 'key-auth-failed',
  billingNotice: 'billing-notice',
} as const;
export type MailJobName = (typeof MAIL_JOBS)[keyof typeof MAIL_JOBS];

const accountId = z.string().regex(/^\d{1,19}$/, 'must be an account id');

/**
 * Job data. Secrets (a verification code and token, a new account's API key) travel only in
 * `sealed`, a secret-box cipher bound to the job id (`mailSealAad`), so Redis never holds them in
 * plaintext. Recipients are resolved by the mailer from the account ids when it sends.
 */
export const mailJobData = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('verification'),
    /** The owner whose mail settings send it (the signup owner's owner). */
    ownerId: accountId,
    email: z.string().min(3).max(320),
    /** Sealed JSON `{ code, token }`. */
    sealed: z.string(),
  }),
  z.object({
    kind: z.literal('welcome'),
    accountId,
    /** Sealed API key of the new account. */
    sealed: z.string(),
  }),
  z.object({ kind: z.literal('soft_limit'), accountId, month: z.string().regex(/^\d{4}-\d{2}$/) }),
  z.object({ kind: z.literal('key_auth_failed'), ownerId: accountId, keyId: accountId }),
  z.object({
    kind: z.literal('billing_notice'),
    accountId,
    subject: z.string().min(1).max(200),
    text: z.string().min(1).max(10_000),
  }),
]);
export type MailJobData = z.infer<typeof mailJobData>;

/** What the verification job seals. */
export interface VerificationSecret {
  code: string;
  token: string;
}

/** The associated data of a job's sealed part: a cipher copied into another job fails to open. */
export function mailSealAad(jobId: string): string {
  return `mail:${jobId}`;
}
