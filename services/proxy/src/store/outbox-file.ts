import { closeSync, createReadStream, fdatasync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const datasync = promisify(fdatasync);

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

/**
 * An append-only file. What is queued in one turn of the event loop is written at the end of the
 * turn in one synchronous write: a page-cache write of a few hundred bytes takes microseconds, less
 * than handing it to libuv's threadpool and back (futex calls on both sides). With `fsync` each
 * batch is then flushed to disk before its callers resolve, and what is queued during that flush
 * is the next batch. The file is created by its first write.
 */
export class AppendFile {
  private queued: string[] = [];
  private waiters: Waiter[] = [];
  /** The flush of the current turn's writes, waiting for the end of the turn. */
  private scheduled?: NodeJS.Immediate;
  /** With `fsync`: the disk flush under way; what is queued meanwhile is written after it. */
  private syncing?: Promise<void>;
  private fd?: number;
  /** With `fsync`: the file's name is on disk (its directory flushed since it was created). */
  private named = false;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly fsync: boolean,
  ) {}

  /** Resolves once the text is written (and on disk, with `fsync`). */
  write(text: string): Promise<void> {
    if (this.closed) {
      return Promise.reject(new Error(`${this.path} is closed`));
    }
    return new Promise((resolve, reject) => {
      this.queued.push(text);
      this.waiters.push({ resolve, reject });
      // setImmediate rather than a microtask: it gathers the writes of every I/O callback of this
      // turn (under load many calls end in one turn), and still resolves before the next poll.
      if (!this.scheduled && !this.syncing) {
        this.scheduled = setImmediate(() => this.flush());
      }
    });
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.flush();
    }
    while (this.syncing) {
      await this.syncing;
    }
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private flush(): void {
    this.scheduled = undefined;
    const texts = this.queued;
    const waiters = this.waiters;
    this.queued = [];
    this.waiters = [];
    try {
      this.writeAll(texts);
    } catch (error) {
      rejectAll(waiters, error);
      return;
    }
    if (!this.fsync) {
      resolveAll(waiters);
      return;
    }
    // The write stays synchronous; only the disk flush, which takes milliseconds, goes to the
    // threadpool, so the loop runs on while it waits. A new file's name must survive an OS crash
    // too, not only its content.
    const fd = this.fd as number;
    this.syncing = Promise.all([datasync(fd), this.named ? undefined : syncDirectory(dirname(this.path))])
      .then(
        () => {
          this.named = true;
          resolveAll(waiters);
        },
        (error: unknown) => rejectAll(waiters, error),
      )
      .finally(() => {
        this.syncing = undefined;
        if (this.queued.length > 0) {
          this.flush();
        }
      });
  }

  /** Opens the file on first use and writes all of `texts` (a write may take part of it). */
  private writeAll(texts: string[]): void {
    this.fd ??= openSync(this.path, 'a');
    const data = Buffer.from(texts.join(''));
    let offset = 0;
    while (offset < data.length) {
      offset += writeSync(this.fd, data, offset);
    }
  }
}

function resolveAll(waiters: Waiter[]): void {
  for (const waiter of waiters) {
    waiter.resolve();
  }
}

function rejectAll(waiters: Waiter[], error: unknown): void {
  for (const waiter of waiters) {
    waiter.reject(error);
  }
}

/** Flushes a directory's entries (created and deleted files) to disk. */
export async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** The file's lines, read as a stream: memory stays flat however large the file is. */
export function readLines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
}
