/**
 * Every BullMQ queue name, in one place. NEVER rename a value: jobs already waiting in Redis
 * under the old name would be orphaned.
 */
export const QUEUES = {
  mail: 'mail',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
