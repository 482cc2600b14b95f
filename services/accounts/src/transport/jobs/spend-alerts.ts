import { QUEUES, type Logger } from '@gw/kit';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { SpendAlerts } from '../../domain/ports.js';

/** The alert job the mailer sends; its jobId makes a second enqueue of the same month a no-op. */
export const SOFT_LIMIT_JOB = 'soft-limit-alert';

export function softLimitJobId(accountId: bigint, month: string): string {
  return `soft-limit:${accountId}:${month}`;
}

/**
 * Enqueues SoftLimit alert mails on the BullMQ `mail` queue. Redis is reached lazily (an
 * accounts process that never crosses a SoftLimit never connects) and an enqueue that fails is
 * logged, never failing the Debit that triggered it: the charge already happened.
 */
export function bullSpendAlerts(redisUrl: string, log: Logger): SpendAlerts & { close(): Promise<void> } {
  let queue: Queue | undefined;
  let connection: Redis | undefined;
  return {
    async softLimitReached(accountId, month) {
      if (!queue) {
        connection = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false });
        connection.on('error', (error: unknown) => log.warn({ err: error }, 'redis connection failed'));
        queue = new Queue(QUEUES.mail, { connection });
      }
      try {
        await queue.add(
          SOFT_LIMIT_JOB,
          { kind: 'soft_limit', accountId: String(accountId), month },
          { jobId: softLimitJobId(accountId, month), removeOnComplete: 1000, removeOnFail: 1000, attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
        );
      } catch (error) {
        log.warn({ err: error, accountId: String(accountId), month }, 'soft-limit alert not enqueued');
      }
    },
    async close() {
      await queue?.close();
      connection?.disconnect();
    },
  };
}
