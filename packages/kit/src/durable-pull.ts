import type { Consumer, JetStreamClient, JsMsg } from 'nats';
import type { Logger } from './log.js';

/** How long the pull for a batch's first message waits at the server before it is sent again. */
const FIRST_PULL_EXPIRES_MS = 5_000;
/** The wait after a pull NATS refused (a reconnect, a consumer being recreated). */
const PULL_RETRY_MS = 1_000;

export interface BatchPuller {
  /** The next batch (one message at least), or [] once stopped. */
  next(): Promise<JsMsg[]>;
  /** Ends a wait in progress: `next` answers what it holds, or []. */
  stop(): void;
}

/**
 * Pulls one batch at a time, so that the messages of a batch reach the process together instead
 * of one socket read (and one wake-up) each: a long pull of one message (the batch's first),
 * then batchWaitMs with no pull outstanding (what arrives meanwhile stays in the stream), then
 * one no-wait pull of the rest of the batch, which answers at once with what is there. A full
 * batch means a backlog: the next one starts with the no-wait pull. Every pull is short-lived:
 * a killed process's pull stays registered until it expires, holding at most one message.
 */
export function pullBatches(
  js: JetStreamClient,
  consumer: Consumer,
  options: { stream: string; durable: string; batchSize: number; batchWaitMs: number; log: Logger },
): BatchPuller {
  const { stream, durable, batchSize, batchWaitMs, log } = options;
  let stopped = false;
  // A call, so a loop reads it afresh after each await (stop() flips it from outside).
  const isStopped = () => stopped;
  let interrupt: (() => void) | undefined;
  let onStop: () => void = () => undefined;
  const whenStopped = new Promise<null>((resolve) => {
    onStop = () => resolve(null);
  });

  /** Waits ms, or less if stopped meanwhile. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (isStopped()) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        interrupt = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      interrupt = done;
    });

  const first = async (): Promise<JsMsg | null> => {
    while (!isStopped()) {
      const pull = consumer.next({ expires: FIRST_PULL_EXPIRES_MS });
      try {
        const msg = await Promise.race([pull, whenStopped]);
        if (msg) {
          return msg;
        }
      } catch (error) {
        log.warn({ err: error, consumer: durable }, 'durable pull failed; will retry');
        await pause(PULL_RETRY_MS);
      }
      if (isStopped()) {
        // What the pull still brings is not handled here: it goes back to the stream at once.
        void pull.then((late) => late?.nak()).catch(() => undefined);
      }
    }
    return null;
  };

  const available = async (count: number): Promise<JsMsg[]> => {
    const found: JsMsg[] = [];
    try {
      // The consumer API's fetch has no no-wait pull: it would keep its pull open for a second
      // and stream what arrives meanwhile, one read at a time.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      for await (const msg of js.fetch(stream, durable, { batch: count, no_wait: true })) {
        found.push(msg);
      }
    } catch (error) {
      // What came before the failure is handled; the rest is pulled with the next batch.
      log.warn({ err: error, consumer: durable }, 'durable pull failed; will retry');
    }
    return found;
  };

  let backlog = false;
  return {
    async next() {
      while (!isStopped()) {
        const batch: JsMsg[] = [];
        if (!backlog) {
          const msg = await first();
          if (!msg) {
            break;
          }
          batch.push(msg);
          if (batchSize > 1) {
            await pause(batchWaitMs);
          }
        }
        if (!isStopped() && batch.length < batchSize) {
          batch.push(...(await available(batchSize - batch.length)));
        }
        backlog = batch.length === batchSize;
        if (batch.length > 0) {
          return batch;
        }
      }
      return [];
    },
    stop() {
      stopped = true;
      interrupt?.();
      onStop();
    },
  };
}
