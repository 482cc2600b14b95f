import { AckPolicy, DeliverPolicy, headers as natsHeaders, type JsMsg } from 'nats';
import { AppError, ErrorCode, excerpt } from './errors.js';
import { newId } from './ids.js';
import { REQUEST_ID_HEADER, runWithContext, type Logger } from './log.js';
import { METRIC } from './metrics/names.js';
import { serviceMetrics } from './metrics/registry.js';
import { pullBatches } from './durable-pull.js';
import { ensureStream, type EventCodec, type NatsConnection } from './nats.js';
import { STREAMS, SUBJECTS, type StreamSpec } from './subjects.js';

/** One message of a batch, decoded. `seq` is its stream sequence, which names it in a rejection. */
export interface Delivered<T> {
  event: T;
  subject: string;
  seq: number;
}

/** A message of its batch the handler can never handle (retrying cannot change it), and why. */
export interface Rejection {
  seq: number;
  reason: string;
}

/** Why a message was set aside: the `reason` label of `gw_events_dead_lettered_total`. */
export type DeadLetterReason = 'undecodable' | 'rejected' | 'redelivery_exhausted';

/** Headers of a dead letter; its data is the original message's, byte for byte. */
export const DEAD_LETTER_HEADERS = {
  reason: 'Gw-Dead-Reason',
  detail: 'Gw-Dead-Detail',
  stream: 'Gw-Dead-Stream',
  subject: 'Gw-Dead-Subject',
  seq: 'Gw-Dead-Seq',
} as const;

/** GW_DEAD_LETTER keeps what was set aside this long, for an operator to read and replay. */
const DEAD_LETTER_MAX_AGE_MS = 30 * 86_400_000;
/** Redelivery waits double from 1 s up to 5 min: 20 deliveries span about an hour. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 300_000;
const LAG_LOG_MS = 60_000;

export interface DurableConsumerOptions<T> {
  stream: StreamSpec;
  /** The durable consumer's name (`nats consumer info <stream> <durable>` shows its state). */
  durable: string;
  codec: EventCodec<T>;
  /**
   * Handles one batch, in stream order; answers the messages it rejects (set aside, the rest
   * acknowledged). Throwing means "try again later": an `unavailable` error delivers the whole
   * batch again; any other error first retries each message alone, so one message that makes
   * its batch fail cannot hold the others back.
   */
  handle(batch: Array<Delivered<T>>): Promise<readonly Rejection[]>;
  log: Logger;
  /** Default 1: each message handled alone. */
  batchSize?: number;
  /** How long a batch waits for more messages after its first one. Default 0. */
  batchWaitMs?: number;
  /** Only bounds how soon a dead process's messages come back: a live one heartbeats. Default 30 s. */
  ackWaitMs?: number;
  /** Messages delivered and not yet acknowledged, at most. Default 1000. */
  maxAckPending?: number;
  /** Deliveries of one message before it is set aside. Default 20 (about an hour of retries). */
  maxDeliver?: number;
}

export interface DurableConsumer {
  /** Messages in the stream not handled yet: not delivered, or delivered and not acknowledged. */
  lag(): Promise<number>;
  /** Stops pulling, waits for the batch in hand, and closes; what was pulled and not handled comes back. */
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

function retryDelay(deliveryCount: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, deliveryCount - 1), RETRY_MAX_MS);
}

/**
 * The one JetStream durable consumer (at-least-once, explicit acks): pulls batches of at most
 * batchSize messages taken within batchWaitMs of the first, one batch at a time, each batch in
 * the request context of its first message's publisher. A message that cannot be decoded, that
 * the handler rejects, or that failed maxDeliver times is set aside in GW_DEAD_LETTER with its
 * reason (counted in `gw_events_dead_lettered_total`) and terminated; a failed one is otherwise
 * delivered again after a doubling wait. The handler must be idempotent.
 */
export async function consumeDurable<T>(
  nc: NatsConnection,
  options: DurableConsumerOptions<T>,
): Promise<DurableConsumer> {
  const { stream, durable, log } = options;
  const batchSize = options.batchSize ?? 1;
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const maxDeliver = options.maxDeliver ?? 20;
  await ensureStream(nc, STREAMS.deadLetter, { maxAgeMs: DEAD_LETTER_MAX_AGE_MS, maxBytes: 0 });
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(stream.name, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ackWaitMs * 1_000_000,
    max_ack_pending: options.maxAckPending ?? 1_000,
    // One above ours: a last delivery cut short by a crash comes back once more to be set aside.
    max_deliver: maxDeliver + 1,
  });
  const js = nc.jetstream();
  const consumer = await js.consumers.get(stream.name, durable);
  const deadLettered = serviceMetrics().counter(
    METRIC.eventsDeadLettered,
    'Messages a durable consumer set aside in GW_DEAD_LETTER',
    ['consumer', 'reason'],
  );

  const setAside = async (msg: JsMsg, reason: DeadLetterReason, detail: string) => {
    const hdrs = natsHeaders();
    hdrs.set(DEAD_LETTER_HEADERS.reason, reason);
    hdrs.set(DEAD_LETTER_HEADERS.detail, excerpt(detail.replace(/[\r\n]+/g, ' '), 300));
    hdrs.set(DEAD_LETTER_HEADERS.stream, stream.name);
    hdrs.set(DEAD_LETTER_HEADERS.subject, msg.subject);
    hdrs.set(DEAD_LETTER_HEADERS.seq, String(msg.seq));
    hdrs.set(REQUEST_ID_HEADER, msg.headers?.get(REQUEST_ID_HEADER) || newId('request'));
    try {
      await js.publish(SUBJECTS.eventDeadLettered(durable), msg.data, {
        msgID: `${stream.name}-${msg.seq}`,
        headers: hdrs,
      });
    } catch (error) {
      // Not set aside, so not dropped either: it comes back and is set aside then.
      log.warn({ err: error, seq: msg.seq }, 'dead letter not stored; will retry');
      msg.nak(RETRY_FIRST_MS);
      return;
    }
    msg.term();
    deadLettered.inc({ consumer: durable, reason });
    log.error({ consumer: durable, seq: msg.seq, subject: msg.subject, reason, detail }, 'message set aside');
  };

  /** A failed message: delivered again later, or set aside once it has had its deliveries. */
  const failed = async (msg: JsMsg, error: unknown) => {
    if (msg.info.deliveryCount >= maxDeliver) {
      await setAside(msg, 'redelivery_exhausted', String(error));
    } else {
      msg.nak(retryDelay(msg.info.deliveryCount));
    }
  };

  const decode = async (batch: JsMsg[]) => {
    const decoded: Array<{ msg: JsMsg; item: Delivered<T> }> = [];
    for (const msg of batch) {
      try {
        const event = options.codec.fromJSON(JSON.parse(decoder.decode(msg.data)));
        decoded.push({ msg, item: { event, subject: msg.subject, seq: msg.seq } });
      } catch (error) {
        // It would fail every redelivery the same way.
        await setAside(msg, 'undecodable', String(error));
      }
    }
    return decoded;
  };

  /** Runs the handler over entries; acknowledges, sets aside, or hands back the error. */
  const attempt = async (entries: Array<{ msg: JsMsg; item: Delivered<T> }>) => {
    const first = entries[0]?.msg.headers?.get(REQUEST_ID_HEADER) || newId('request');
    const rejected = await runWithContext({ requestId: first }, () =>
      options.handle(entries.map((entry) => entry.item)),
    );
    const reasons = new Map(rejected.map((rejection) => [rejection.seq, rejection.reason]));
    for (const { msg } of entries) {
      const reason = reasons.get(msg.seq);
      if (reason === undefined) {
        msg.ack();
      } else {
        await setAside(msg, 'rejected', reason);
      }
    }
  };

  const handleBatch = async (batch: JsMsg[]) => {
    const decoded = await decode(batch);
    if (decoded.length === 0) {
      return;
    }
    // A batch slower than ack_wait would be delivered again while still in hand: tell JetStream
    // its messages are being worked on.
    const inHand = setInterval(() => {
      for (const { msg } of decoded) {
        msg.working();
      }
    }, ackWaitMs / 3);
    try {
      await attempt(decoded);
    } catch (error) {
      log.error({ err: error, consumer: durable, messages: decoded.length }, 'durable batch failed');
      const dependencyDown = error instanceof AppError && error.code === ErrorCode.Unavailable;
      if (dependencyDown || decoded.length === 1) {
        for (const { msg } of decoded) {
          await failed(msg, error);
        }
      } else {
        for (const entry of decoded) {
          await attempt([entry]).catch((alone: unknown) => failed(entry.msg, alone));
        }
      }
    } finally {
      clearInterval(inHand);
    }
  };

  const puller = pullBatches(js, consumer, {
    stream: stream.name,
    durable,
    batchSize,
    batchWaitMs: options.batchWaitMs ?? 0,
    log,
  });
  const loop = (async () => {
    for (let batch = await puller.next(); batch.length > 0; batch = await puller.next()) {
      await handleBatch(batch);
    }
  })();

  const lag = async () => {
    const info = await consumer.info();
    return info.num_pending + info.num_ack_pending;
  };
  const lagTimer = setInterval(() => {
    void lag()
      .then((behind) => {
        if (behind > 0) {
          log.info({ consumer: durable, behind }, 'durable consumer lag');
        }
      })
      .catch(() => undefined);
  }, LAG_LOG_MS);
  lagTimer.unref();

  return {
    lag,
    async stop() {
      clearInterval(lagTimer);
      puller.stop();
      await loop;
    },
  };
}
