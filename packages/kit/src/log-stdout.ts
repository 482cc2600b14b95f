import { errorMonitor } from 'node:events';
import { destination as pinoDestination, type DestinationStream } from 'pino';

/**
 * Bytes of lines held before they go out in one write(2), about 150 access lines. Written one by
 * one, at one AI call in flight every line cost a write from libuv's threadpool (and its futex
 * handoffs) and a chunk of its own for the reader of the pipe, `npm start`'s launcher, which
 * copies every chunk it reads; in batches of 4 KiB, a proxy answering a thousand calls a second
 * still spent about 2 % of its CPU on them. From 12 KiB to 48 KiB, the launcher's share fell from
 * 10-13 to 4-10 µs per AI call (bench/RESULTS.md, sixteenth round).
 */
const BUFFER_BYTES = 49_152;

/**
 * sonic-boom's largest write, above the batch (it refuses a batch that is not below it) and no
 * more than a pipe holds (64 KiB on Linux), so that one write fills an empty pipe at once.
 */
const MAX_WRITE_BYTES = 65_536;

/**
 * The longest a line waits in the buffer of a quiet process. 100 ms is below what an operator
 * watching the log notices, and only a process writing fewer than about 1 500 lines a second
 * reaches it: a busier one fills the buffer first, so the batches stay whole where writes cost.
 */
const FLUSH_INTERVAL_MS = 100;

/**
 * Standard output for pino, written asynchronously in batches: when BUFFER_BYTES are pending, and
 * FLUSH_INTERVAL_MS after a line began to wait. A process that exits writes what it holds first:
 * pino registers a synchronous flush of this destination on 'exit', which every `process.exit`
 * (lifecycle.ts: shutdown, a failed start, a shutdown that took too long) and an uncaught
 * exception emit; only a batch the threadpool is writing at that moment can still be cut short,
 * as any line could before batching. A process killed outright (SIGKILL, or a signal it has no
 * handler for yet) loses what it held.
 */
export function bufferedStdout(): DestinationStream {
  // Lines are handed over as bytes: in text mode sonic-boom appends each line to one string and
  // measures it again, which copies the whole pending batch on every line (about 4 KB of garbage
  // and 3 µs per line at this batch size; 1 µs as bytes).
  const stream = pinoDestination({
    dest: 1,
    sync: false,
    minLength: BUFFER_BYTES,
    maxWrite: MAX_WRITE_BYTES,
    contentMode: 'buffer',
  });
  // sonic-boom's types know only its text mode's `write`.
  const writeBytes = stream.write.bind(stream) as unknown as (bytes: Buffer) => boolean;
  // Counted here because sonic-boom's flush() writes even an empty buffer: flushing only when a
  // line waits keeps an idle process from a write(2) every tick.
  let pending = 0;
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  // A timer only while a line waits: an idle process is not woken ten times a second for nothing
  // (a wake-up costs more than the check it runs). A flush that finds a write in flight does
  // nothing; that write's end arms the timer again if lines still wait.
  const flushSoon = () => {
    if (!failed) {
      timer ??= setTimeout(() => {
        timer = undefined;
        if (pending > 0) {
          stream.flush();
        }
      }, FLUSH_INTERVAL_MS).unref();
    }
  };
  stream.on('write', (written: number) => {
    pending -= written;
    if (pending > 0) {
      flushSoon();
    }
  });
  // A failed stdout is not retried: after EPIPE (nothing reads it any more) pino drops every
  // line, and any other error ends the process as before (a monitor handles no error).
  stream.on(errorMonitor, () => {
    failed = true;
    clearTimeout(timer);
  });
  return {
    write(line: string) {
      const bytes = Buffer.from(line);
      pending += bytes.length;
      writeBytes(bytes);
      flushSoon();
    },
  };
}
