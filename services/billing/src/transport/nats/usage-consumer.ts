import { STREAMS, type Logger, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import { AckPolicy, DeliverPolicy, type JsMsg } from 'nats';
import type { UsageEvent } from '../../domain/ports.js';

/** The durable consumer's name on GW_USAGE (`nats consumer info GW_USAGE billing` shows its lag). */
export const USAGE_CONSUMER = 'billing';

export interface UsageConsumerOptions {
  batchSize: number;
  batchWaitMs: number;
  maxAckPending: number;
  ackWaitMs: number;
  /** Charges one batch; the batch is acknowledged only after it resolves. */
  handle(events: UsageEvent[]): Promise<void>;
  log: Logger;
}

const decoder = new TextDecoder();
/** A failed batch is delivered again after this long. */
const RETRY_MS = 1_000;
const LAG_LOG_MS = 60_000;
const PULL_EXPIRES_MS = 5_000;

/**
 * Pulls `gw.usage.recorded` through a durable consumer with explicit acks, in batches of at most
 * batchSize events taken within batchWaitMs of the first, one batch at a time. Every event of a
 * batch is acknowledged after `handle` resolved; when it throws, every event is delivered again.
 * JetStream holds back more than maxAckPending unacknowledged events, so a stalled billing
 * builds a lag in the stream (retained for GW_USAGE_MAX_AGE_DAYS), not in memory.
 */
export async function consumeUsage(
  nc: NatsConnection,
  options: UsageConsumerOptions,
): Promise<{ stop(): Promise<void>; lag(): Promise<number> }> {
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(STREAMS.usage.name, {
    durable_name: USAGE_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: options.ackWaitMs * 1_000_000,
    max_ack_pending: options.maxAckPending,
  });
  const consumer = await nc.jetstream().consumers.get(STREAMS.usage.name, USAGE_CONSUMER);
  // Short-lived pull requests: the server hands new events to the oldest waiting pull, and a
  // killed billing's pulls stay registered until they expire, so its successor would wait that
  // long (plus ack_wait) for what they swallowed.
  const messages = await consumer.consume({ max_messages: options.batchSize * 2, expires: PULL_EXPIRES_MS });
  const queue: JsMsg[] = [];
  let wake: (() => void) | undefined;
  // An object, so the loop re-reads it after each await (stop() flips it from outside).
  const state = { stopped: false };
  void (async () => {
    for await (const msg of messages) {
      queue.push(msg);
      wake?.();
    }
  })();
  const arrival = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** Undecodable messages are dropped (logged, `term`): they would fail every redelivery. */
  const decode = (batch: JsMsg[]) => {
    const decoded: Array<{ msg: JsMsg; event: UsageEvent }> = [];
    for (const msg of batch) {
      try {
        decoded.push({ msg, event: events.UsageRecorded.fromJSON(JSON.parse(decoder.decode(msg.data))) });
      } catch (error) {
        options.log.error(
          { err: error, seq: msg.seq },
          'usage message is not a UsageRecorded event; dropped',
        );
        msg.term();
      }
    }
    return decoded;
  };

  const charge = async (batch: JsMsg[]) => {
    const decoded = decode(batch);
    // A batch slower than ack_wait (accounts slow or waiting on a lock) would be delivered again
    // while it is still being charged, and so would the events queued behind it: tell JetStream
    // they are in hand. So ack_wait only bounds how soon a dead billing's events come back.
    const inHand = setInterval(() => {
      for (const msg of [...decoded.map((entry) => entry.msg), ...queue]) {
        msg.working();
      }
    }, options.ackWaitMs / 3);
    try {
      await options.handle(decoded.map((entry) => entry.event));
      for (const { msg } of decoded) {
        msg.ack();
      }
    } catch (error) {
      options.log.error(
        { err: error, events: decoded.length },
        'usage batch failed; will be delivered again',
      );
      for (const { msg } of decoded) {
        msg.nak(RETRY_MS);
      }
    } finally {
      clearInterval(inHand);
    }
  };

  const loop = (async () => {
    while (!state.stopped) {
      if (queue.length === 0) {
        await arrival(1_000);
        continue;
      }
      const deadline = Date.now() + options.batchWaitMs;
      while (queue.length < options.batchSize && Date.now() < deadline) {
        await arrival(deadline - Date.now());
      }
      await charge(queue.splice(0, options.batchSize));
    }
  })();

  const lagTimer = setInterval(() => {
    void consumer
      .info()
      .then((info) => {
        if (info.num_pending > 0 || info.num_ack_pending > 0) {
          options.log.info(
            { pending: info.num_pending, ackPending: info.num_ack_pending },
            'usage consumer lag',
          );
        }
      })
      .catch(() => undefined);
  }, LAG_LOG_MS);
  lagTimer.unref();

  return {
    /** Events in the stream not yet charged: not delivered, or delivered and not acknowledged. */
    async lag() {
      const info = await consumer.info();
      return info.num_pending + info.num_ack_pending;
    },
    async stop() {
      state.stopped = true;
      clearInterval(lagTimer);
      wake?.();
      await loop;
      await messages.close();
      // Events pulled but not charged are delivered again after ack_wait; none is lost.
    },
  };
}
