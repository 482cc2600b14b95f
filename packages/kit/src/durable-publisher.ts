import { createInbox, type MsgHdrs, type Msg, type NatsConnection, type PubAck } from 'nats';

/** The header JetStream drops duplicates by (what nats.js's js.publish sets for `msgID`). */
export const MSG_ID_HEADER = 'Nats-Msg-Id';
/** nats.js's default JetStream timeout, which js.publish waited for an ack. */
const ACK_TIMEOUT_MS = 5_000;
/** How often the publishes waiting for an ack are checked for their deadline. */
const SWEEP_MS = 250;

const decoder = new TextDecoder();

interface Waiting {
  subject: string;
  /** performance.now() after which the publish fails as unacknowledged. */
  deadline: number;
  resolve(ack: PubAck): void;
  reject(error: Error): void;
}

interface JetStreamReply {
  stream?: string;
  domain?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

/**
 * Publishes to JetStream and waits for the stream's ack, as js.publish does, with less work per
 * message: js.publish makes each publish a request with its own timer and, once acknowledged,
 * builds an error (with a captured stack) it throws away. Here one subscription per connection
 * takes every ack (reply subject `<inbox>.<n>`), and one interval fails those not acknowledged
 * in time, running only while some wait.
 */
class DurablePublisher {
  private readonly inbox = createInbox();
  private readonly waiting = new Map<string, Waiting>();
  private next = 0;
  private sweeper?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly nc: NatsConnection) {
    // An error here (a permission refused) closes the subscription, which fails what waits.
    const subscription = nc.subscribe(`${this.inbox}.*`, {
      callback: (error, msg) => {
        if (!error) {
          this.settle(msg);
        }
      },
    });
    // Closed with the connection (or drained with it): nothing can be acknowledged any more.
    void subscription.closed.then(() => {
      this.closed = true;
      this.failAll('the NATS connection closed before JetStream acknowledged the publish');
    });
  }

  publish(subject: string, data: Uint8Array, headers: MsgHdrs): Promise<PubAck> {
    if (this.closed) {
      return Promise.reject(new Error(`JetStream publish to ${subject}: the NATS connection is closed`));
    }
    const token = String(this.next++);
    return new Promise<PubAck>((resolve, reject) => {
      try {
        this.nc.publish(subject, data, { reply: `${this.inbox}.${token}`, headers });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.waiting.set(token, { subject, deadline: performance.now() + ACK_TIMEOUT_MS, resolve, reject });
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
    });
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const waiting = this.waiting.get(token);
    if (!waiting) {
      return;
    }
    this.waiting.delete(token);
    const outcome = readAck(msg, waiting.subject);
    if (outcome instanceof Error) {
      waiting.reject(outcome);
    } else {
      waiting.resolve(outcome);
    }
  }

  private sweep(): void {
    const now = performance.now();
    // Every publish waits as long, so the map (in publish order) is in deadline order too.
    for (const [token, waiting] of this.waiting) {
      if (waiting.deadline > now) {
        break;
      }
      this.waiting.delete(token);
      waiting.reject(
        new Error(
          `JetStream did not acknowledge the publish to ${waiting.subject} within ${ACK_TIMEOUT_MS} ms`,
        ),
      );
    }
    if (this.waiting.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private failAll(reason: string): void {
    for (const waiting of this.waiting.values()) {
      waiting.reject(new Error(`JetStream publish to ${waiting.subject}: ${reason}`));
    }
    this.waiting.clear();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

/**
 * What js.publish checks in the reply: a 503 status without data (nothing subscribes to the
 * subject: no stream takes it), an `error` from JetStream, or a PubAck naming its stream.
 */
function readAck(msg: Msg, subject: string): PubAck | Error {
  if (msg.data.length === 0 && msg.headers?.code === 503) {
    return new Error(`JetStream publish to ${subject}: no stream takes this subject (no responders)`);
  }
  let reply: JetStreamReply;
  try {
    reply = JSON.parse(decoder.decode(msg.data)) as JetStreamReply;
  } catch {
    return new Error(`JetStream publish to ${subject}: the reply is not JSON`);
  }
  if (reply.error) {
    const { code, err_code: errCode, description } = reply.error;
    return new Error(
      `JetStream refused the publish to ${subject}: ${description} (${code}, err_code ${errCode})`,
    );
  }
  if (typeof reply.stream !== 'string' || reply.stream === '' || typeof reply.seq !== 'number') {
    return new Error(`JetStream publish to ${subject}: the reply is not an ack`);
  }
  return { stream: reply.stream, domain: reply.domain, seq: reply.seq, duplicate: reply.duplicate ?? false };
}

const publishers = new WeakMap<NatsConnection, DurablePublisher>();

/** The connection's one DurablePublisher, made at its first durable publish. */
export function durablePublisherOf(nc: NatsConnection): DurablePublisher {
  let publisher = publishers.get(nc);
  if (!publisher) {
    publisher = new DurablePublisher(nc);
    publishers.set(nc, publisher);
  }
  return publisher;
}
