import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { redisEnv } from './config.js';
import type { Logger } from './log.js';
import { QUEUES } from './queues.js';

/** Env of a service that enqueues mail: the Redis of the queue, and the prefix of its BullMQ keys. */
export const mailQueueEnv = {
  ...redisEnv,
  GW_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('bull'),
};

export interface MailQueue {
  /**
   * Adds one mail job. Job ids must not contain ':' (BullMQ reserves it). The jobId makes a second enqueue of the same alert a no-op (BullMQ keeps
   * one job per id), so replicas that notice the same event send one mail.
   */
  enqueue(name: string, data: Record<string, string>, jobId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The BullMQ `mail` queue, reached lazily (a process that never alerts never connects). A failed
 * enqueue is logged and swallowed: the event that triggered it (a charge, a failed upstream call)
 * has already happened and must not fail because of mail.
 */
export function createMailQueue(redisUrl: string, prefix: string, log: Logger): MailQueue {
  let queue: Queue | undefined;
  let connection: Redis | undefined;
  return {
    async enqueue(name, data, jobId) {
      if (jobId.includes(':')) {
        throw new Error(`mail job id ${jobId} contains ':'`);
      }
      if (!queue) {
        connection = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
        connection.on('error', (error: unknown) => log.warn({ err: error }, 'redis connection failed'));
        queue = new Queue(QUEUES.mail, { connection, prefix });
      }
      try {
        await queue.add(name, data, {
          jobId,
          removeOnComplete: 1000,
          removeOnFail: 1000,
          attempts: 5,
          backoff: { type: 'exponential', delay: 1000 },
        });
      } catch (error) {
        log.warn({ err: error, job: name, jobId }, 'mail job not enqueued');
      }
    },
    async close() {
      await queue?.close();
      connection?.disconnect();
    },
  };
}
