import {
  connect,
  headers as natsHeaders,
  type MsgHdrs,
  type NatsConnection,
  type PubAck,
  type Subscription,
} from 'nats';
import { durablePublisherOf, MSG_ID_HEADER } from './durable-publisher.js';
import { newId } from './ids.js';
import { currentRequestId, REQUEST_ID_HEADER, type Logger } from './log.js';
import type { StreamSpec } from './subjects.js';

export type { NatsConnection, JetStreamClient } from 'nats';

/** A ts-proto message type with its proto3 JSON methods (events travel as readable JSON). */
export interface EventCodec<T> {
  toJSON(message: T): unknown;
  fromJSON(object: unknown): T;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The client's routine chatter (ping timer, reconnect attempts, cluster updates) is debug; a lost
 * connection or a server error is a warning; getting back is worth an info line.
 */
export function natsStatusLevel(type: string): 'debug' | 'info' | 'warn' {
  switch (type) {
    case 'disconnect':
    case 'error':
    case 'staleConnection':
    case 'ldm':
      return 'warn';
    case 'reconnect':
      return 'info';
    default:
      return 'debug';
  }
}

export async function connectNats(url: string, name: string, log: Logger): Promise<NatsConnection> {
  // noAsyncTraces: the client would capture two stack traces for every request (a JetStream
  // pull is one), in case it times out; in the proxy's profile, when its JetStream publishes were
  // requests too, that was about 3 % of its CPU.
  // A timeout still fails with its NatsError code, logged with what was being done.
  const nc = await connect({
    servers: url,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      log[natsStatusLevel(status.type)]({ nats: status.type }, 'nats status');
    }
  })();
  return nc;
}

/**
 * The request id a message carries: the one its publisher names (the proxy's AI path, which keeps
 * no request context), else the current context's, else a new one.
 */
function contextHeaders(requestId: string | undefined): MsgHdrs {
  const hdrs = natsHeaders();
  hdrs.set(REQUEST_ID_HEADER, requestId ?? currentRequestId() ?? newId('request'));
  return hdrs;
}

/** Fire-and-forget broadcast on core NATS (cache invalidation: every replica gets it). */
export function publishEvent<T>(nc: NatsConnection, subject: string, codec: EventCodec<T>, message: T): void {
  nc.publish(subject, encoder.encode(JSON.stringify(codec.toJSON(message))), {
    headers: contextHeaders(undefined),
  });
}

/**
 * Durable publish to JetStream, resolved by the stream's ack (rejected by its refusal, by no
 * stream taking the subject, or after 5 s without an ack); msgId makes the stream drop
 * duplicates inside its window.
 */
export function publishDurable<T>(
  nc: NatsConnection,
  subject: string,
  codec: EventCodec<T>,
  message: T,
  msgId: string,
): Promise<PubAck> {
  return publishDurableJson(nc, subject, JSON.stringify(codec.toJSON(message)), msgId);
}

/**
 * `publishDurable` of a message already written as JSON (`codec.toJSON`, then `JSON.stringify`):
 * the proxy's usage outbox writes each event so to disk first and publishes that same text. A
 * publisher that keeps no request context names its `requestId`.
 */
export async function publishDurableJson(
  nc: NatsConnection,
  subject: string,
  json: string,
  msgId: string,
  requestId?: string,
): Promise<PubAck> {
  const headers = contextHeaders(requestId);
  headers.set(MSG_ID_HEADER, msgId);
  return durablePublisherOf(nc).publish(subject, encoder.encode(json), headers);
}

/**
 * Subscribes on core NATS. The handlers are cache invalidations, run outside any request context:
 * entering one would switch on Node's promise hooks for the whole process, the proxy's AI path
 * included (see `runWithContext`). A failure is logged with the publisher's request id.
 */
export function subscribeEvents<T>(
  nc: NatsConnection,
  subject: string,
  codec: EventCodec<T>,
  handler: (message: T, subject: string) => void | Promise<void>,
  log: Logger,
): Subscription {
  const subscription = nc.subscribe(subject);
  void (async () => {
    for await (const msg of subscription) {
      try {
        await handler(codec.fromJSON(JSON.parse(decoder.decode(msg.data))), msg.subject);
      } catch (error) {
        const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
        log.error({ err: error, subject: msg.subject, requestId }, 'event handler failed');
      }
    }
  })();
  return subscription;
}

/** How much a stream keeps: older or excess messages are dropped, oldest first. */
export interface StreamLimits {
  maxAgeMs: number;
  /** 0: no byte cap. */
  maxBytes: number;
}

/**
 * Creates the stream, or brings its subjects (and limits, when given) up to date; safe to call
 * from every replica, which must then agree on the limits (they come from the same variables).
 */
export async function ensureStream(
  nc: NatsConnection,
  spec: StreamSpec,
  limits?: StreamLimits,
): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const wantedLimits = limits
    ? { max_age: nanos(limits.maxAgeMs), max_bytes: limits.maxBytes > 0 ? limits.maxBytes : -1 }
    : {};
  try {
    const info = await jsm.streams.info(spec.name);
    const wanted = [...spec.subjects].sort().join(',');
    const limitsDiffer =
      limits !== undefined &&
      (info.config.max_age !== wantedLimits.max_age || info.config.max_bytes !== wantedLimits.max_bytes);
    if ([...info.config.subjects].sort().join(',') !== wanted || limitsDiffer) {
      await jsm.streams.update(spec.name, { ...info.config, subjects: [...spec.subjects], ...wantedLimits });
    }
  } catch (error) {
    if (!String(error).includes('stream not found')) {
      throw error;
    }
    try {
      await jsm.streams.add({ name: spec.name, subjects: [...spec.subjects], ...wantedLimits });
    } catch (raced) {
      // Another replica created it between our info and add: that is the same outcome.
      if (!String(raced).includes('already in use')) {
        throw raced;
      }
    }
  }
}

function nanos(ms: number): number {
  return ms * 1_000_000;
}
