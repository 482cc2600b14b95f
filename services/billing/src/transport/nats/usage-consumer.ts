import { consumeDurable, STREAMS, type DurableConsumer, type Logger, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { Unchargeable } from '../../domain/charge-batch.js';
import type { UsageEvent } from '../../domain/ports/usage.js';

/** The durable consumer's name on GW_USAGE (`nats consumer info GW_USAGE billing` shows its lag). */
export const USAGE_CONSUMER = 'billing';

export interface UsageConsumerOptions {
  batchSize: number;
  batchWaitMs: number;
  maxAckPending: number;
  ackWaitMs: number;
  /** Charges one batch; answers the events that can never be charged, which are set aside. */
  handle(events: UsageEvent[]): Promise<Unchargeable[]>;
  log: Logger;
}

/**
 * Pulls `gw.usage.recorded` through the kit's durable consumer, in batches of at most batchSize
 * events taken within batchWaitMs of the first. The charged events are acknowledged after
 * `handle` resolved; an unchargeable one goes to GW_DEAD_LETTER with its reason. JetStream holds
 * back more than maxAckPending unacknowledged events, so a stalled billing builds a lag in the
 * stream (retained for GW_USAGE_MAX_AGE_DAYS), not in memory.
 */
export function consumeUsage(nc: NatsConnection, options: UsageConsumerOptions): Promise<DurableConsumer> {
  return consumeDurable(nc, {
    stream: STREAMS.usage,
    durable: USAGE_CONSUMER,
    codec: events.UsageRecorded,
    batchSize: options.batchSize,
    batchWaitMs: options.batchWaitMs,
    maxAckPending: options.maxAckPending,
    ackWaitMs: options.ackWaitMs,
    log: options.log,
    async handle(batch) {
      const unchargeable = await options.handle(batch.map((entry) => entry.event));
      const reasons = new Map(unchargeable.map((event) => [event.eventId, event.reason]));
      return batch.flatMap((entry) => {
        const reason = reasons.get(entry.event.eventId);
        return reason === undefined ? [] : [{ seq: entry.seq, reason }];
      });
    },
  });
}
