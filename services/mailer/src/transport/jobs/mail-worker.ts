import { connectRedis, QUEUES, type Logger } from '@gw/kit';
import { UnrecoverableError, Worker } from 'bullmq';
import { deliverMail } from '../../domain/deliver-mail.js';
import type { MailerDeps } from '../../domain/ports/deps.js';

/**
 * The BullMQ worker of the `mail` queue. Each job is tried up to its `attempts` (5, set by the
 * enqueuer) with exponential backoff; a job that can never be sent fails at once
 * (UnrecoverableError). Failed jobs stay in BullMQ's failed set (the dead letters) and in the
 * delivery log as `dead`. A worker killed during a send leaves the job active; BullMQ's stalled
 * check hands it out again, so a message may arrive twice (with the same Message-ID): delivery is
 * at least once.
 */
export function startMailWorker(
  deps: MailerDeps,
  options: { redisUrl: string; prefix: string; concurrency: number; log: Logger },
): { close(): Promise<void> } {
  const connection = connectRedis(options.redisUrl, 'worker', options.log, 'mail worker');
  const worker = new Worker(
    QUEUES.mail,
    async (job) => {
      const outcome = await deliverMail(deps, {
        id: job.id ?? job.name,
        data: job.data,
        attempt: job.attemptsMade + 1,
        maxAttempts: job.opts.attempts ?? 1,
      });
      if (!outcome.ok) {
        throw outcome.permanent ? new UnrecoverableError(outcome.error) : new Error(outcome.error);
      }
    },
    { connection, prefix: options.prefix, concurrency: options.concurrency },
  );
  worker.on('failed', (job, error) => {
    options.log.warn({ jobId: job?.id, job: job?.name, reason: error.message }, 'mail attempt failed');
  });
  worker.on('error', (error) => options.log.warn({ err: error }, 'mail worker error'));
  return {
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
