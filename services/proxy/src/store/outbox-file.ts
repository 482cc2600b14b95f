import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * An append-only file that writes whatever was queued while the previous write ran in one write
 * (and one flush to disk with `fsync`), so many concurrent calls cost few system calls. The file
 * is created by its first write.
 */
export class AppendFile {
  private queued: string[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing?: Promise<void>;
  private handle?: FileHandle;
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
      this.flushing ??= this.flush();
    });
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing) {
      await this.flushing;
    }
    await this.handle?.close();
    this.handle = undefined;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const text = this.queued.join('');
        const waiters = this.waiters;
        this.queued = [];
        this.waiters = [];
        try {
          const handle = await this.opened();
          await handle.appendFile(text);
          if (this.fsync) {
            await handle.datasync();
          }
          for (const waiter of waiters) {
            waiter.resolve();
          }
        } catch (error) {
          for (const waiter of waiters) {
            waiter.reject(error);
          }
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async opened(): Promise<FileHandle> {
    if (!this.handle) {
      this.handle = await open(this.path, 'a');
      if (this.fsync) {
        // The new file's name must survive an OS crash too, not only its content.
        await syncDirectory(dirname(this.path));
      }
    }
    return this.handle;
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
