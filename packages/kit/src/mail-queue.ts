import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectRedis } from './redis.js';
import { z } from 'zod';
import { env, redisEnv } from './config.js';
import type { Logger } from './log.js';
import type { MailJobData, MailJobName } from './mail-jobs.js';
import { QUEUES } from './queues.js';

/** Env of a service that enqueues mail: the Redis of the queue, and the prefix of its BullMQ keys. */
export const mailQueueEnv = {
  ...redisEnv,
  GW_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('bull')
    .describe("Prefix of the mail queue's BullMQ keys in Redis."),
  GW_MAIL_RETRY_MS: env
    .integer(1_000, { min: 1, max: 3_600_000 })
    .describe('First retry delay of a mail job; each further retry waits twice as long (5 attempts).'),
};

/** Attempts per mail job: the first send and four retries. */
export const MAIL_ATTEMPTS = 5;

export interface MailQueue {
  /**
   * Adds one mail job; false when Redis did not take it (logged). Job ids must not contain ':'
   * (BullMQ reserves it). The jobId makes a second enqueue of the same alert a no-op (BullMQ keeps
   * one job per id), so replicas that notice the same event send one mail.
   */
  enqueue(name: MailJobName, data: MailJobData, jobId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The BullMQ `mail` queue, reached lazily (a process that never alerts never connects). A failed
 * enqueue is logged and answered false, never thrown: for an alert, the event that triggered it
 * (a charge, a failed upstream call) has already happened and must not fail because of mail;
 * signup, which must not go on without its mail, checks the answer.
 */
export function createMailQueue(
  redisUrl: string,
  prefix: string,
  log: Logger,
  retryDelayMs = 1_000,
): MailQueue {
  let queue: Queue | undefined;
  let connection: Redis | undefined;
  return {
    async enqueue(name, data, jobId) {
      if (jobId.includes(':')) {
        throw new Error(`mail job id ${jobId} contains ':'`);
      }
      if (!queue) {
        connection = connectRedis(redisUrl, 'durable', log, 'mail queue');
        queue = new Queue(QUEUES.mail, { connection, prefix });
      }
      try {
        await queue.add(name, data, {
          jobId,
          removeOnComplete: 1000,
          removeOnFail: 1000,
          attempts: MAIL_ATTEMPTS,
          backoff: { type: 'exponential', delay: retryDelayMs },
        });
        return true;
      } catch (error) {
        log.warn({ err: error, job: name, jobId }, 'mail job not enqueued');
        return false;
      }
    },
    async close() {
      await queue?.close();
      connection?.disconnect();
    },
  };
}
