import { AppError, mailJobData } from '@gw/kit';
import { mailRouteOf, senderOf } from './mail-route.js';
import type { DeliveryEntry } from './ports/delivery-log.js';
import type { MailerDeps } from './ports/deps.js';
import type { MailRoute } from './ports/mail-sender.js';
import { prepareMail, UnsendableMail, type PreparedMail } from './prepare-mail.js';

export interface MailJob {
  id: string;
  data: unknown;
  /** 1 for the first try. */
  attempt: number;
  maxAttempts: number;
}

export type DeliveryOutcome = { ok: true } | { ok: false; permanent: boolean; error: string };

function transportName(route: MailRoute): string {
  return route.kind === 'eml' ? 'eml' : route.source;
}

/**
 * Sends one job of the `mail` queue and writes the attempt to the delivery log: `sent` (or
 * `written` for an .eml file), `retrying` when the queue will try again (exponential backoff),
 * `dead` after the last attempt or for a job that can never be sent. The log holds recipient,
 * template, outcome and an error in our own words, never the message itself.
 */
export async function deliverMail(deps: MailerDeps, job: MailJob): Promise<DeliveryOutcome> {
  const entry: DeliveryEntry = {
    jobId: job.id,
    template: 'unknown',
    recipient: '',
    ownerId: null,
    attempt: job.attempt,
    status: 'dead',
    transport: 'none',
    error: '',
  };
  const finish = async (outcome: DeliveryOutcome): Promise<DeliveryOutcome> => {
    if (outcome.ok) {
      entry.status = entry.transport === 'eml' ? 'written' : 'sent';
    } else {
      entry.status = outcome.permanent || job.attempt >= job.maxAttempts ? 'dead' : 'retrying';
      entry.error = outcome.error;
    }
    await deps.log.record(entry);
    return outcome;
  };

  const parsed = mailJobData.safeParse(job.data);
  if (!parsed.success) {
    return finish({ ok: false, permanent: true, error: 'the job data is not a known mail job' });
  }
  entry.template = parsed.data.kind;
  let prepared: PreparedMail;
  let values: Record<string, string>;
  try {
    prepared = await prepareMail(deps, job.id, parsed.data);
    Object.assign(entry, { template: prepared.template, recipient: prepared.to, ownerId: prepared.ownerId });
    values = await deps.settings.values(prepared.ownerId);
  } catch (error) {
    if (error instanceof UnsendableMail) {
      entry.recipient = error.recipient;
      return finish({ ok: false, permanent: true, error: error.message });
    }
    if (error instanceof AppError) {
      return finish({ ok: false, permanent: false, error: `a backing service failed (${error.code})` });
    }
    throw error;
  }
  const route = mailRouteOf(values, prepared.ownerIsRoot, deps.policy);
  entry.transport = transportName(route);
  const result = await deps.sender.send(route, {
    messageId: `<${job.id}@${new URL(deps.policy.publicUrl).hostname || 'gateway'}>`,
    from: senderOf(values, deps.policy),
    to: prepared.to,
    ...prepared.rendered,
  });
  return finish(result.ok ? { ok: true } : result);
}
