import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@gw/kit';
import { events } from '@gw/proto';
import type { UsageOutbox } from '../domain/ports.js';

/** Publishes one event durably (JetStream, message id = event id); resolves on the stream's ack. */
export type PublishUsage = (event: events.UsageRecorded) => Promise<void>;

const EVENTS_FILE = 'events.jsonl';
const ACKED_FILE = 'acked.log';
const BATCH = 64;

/**
 * docs/decisions.md §5: every usage event is appended to `events.jsonl` before it is published;
 * the id of each event JetStream acknowledged is appended to `acked.log`. At start both files are
 * read, the unacknowledged events are written back (compacted) and published again; JetStream
 * drops any that it already had through the message id. When nothing is pending the files are
 * truncated. Durable against a process crash (the kernel holds written data); an OS crash needs
 * `PROXY_OUTBOX_FSYNC`.
 */
export class FileUsageOutbox implements UsageOutbox {
  private readonly pending = new Map<string, events.UsageRecorded>();
  private readonly inFlight = new Set<string>();
  private eventsFile?: FileHandle;
  private ackedFile?: FileHandle;
  private writes: Promise<void> = Promise.resolve();
  private draining = false;
  private closed = false;
  private retryTimer?: NodeJS.Timeout;
  private idleWaiters: Array<() => void> = [];
  private ackedSinceCompaction = 0;

  constructor(
    private readonly dir: string,
    private readonly max: number,
    private readonly publish: PublishUsage,
    private readonly log: Logger,
    private readonly fsync = false,
  ) {}

  /** Reads what a previous run left, compacts it, and starts publishing it. */
  async open(): Promise<number> {
    mkdirSync(this.dir, { recursive: true });
    const eventsPath = join(this.dir, EVENTS_FILE);
    const ackedPath = join(this.dir, ACKED_FILE);
    const acked = new Set(
      existsSync(ackedPath) ? readFileSync(ackedPath, 'utf8').split('\n').filter(Boolean) : [],
    );
    const lines = existsSync(eventsPath) ? readFileSync(eventsPath, 'utf8').split('\n').filter(Boolean) : [];
    for (const line of lines) {
      try {
        const event = events.UsageRecorded.fromJSON(JSON.parse(line));
        if (event.eventId && !acked.has(event.eventId)) {
          this.pending.set(event.eventId, event);
        }
      } catch {
        // A torn last line from a crash mid-write: the call it belonged to was never answered.
        this.log.warn('skipping an unreadable outbox line');
      }
    }
    const compacted = [...this.pending.values()]
      .map((event) => `${JSON.stringify(events.UsageRecorded.toJSON(event))}\n`)
      .join('');
    writeFileSync(`${eventsPath}.tmp`, compacted);
    renameSync(`${eventsPath}.tmp`, eventsPath);
    writeFileSync(ackedPath, '');
    this.eventsFile = await open(eventsPath, 'a');
    this.ackedFile = await open(ackedPath, 'a');
    if (this.pending.size > 0) {
      this.log.info({ pending: this.pending.size }, 'replaying usage outbox');
      this.kick();
    }
    return this.pending.size;
  }

  get size(): number {
    return this.pending.size;
  }

  isFull(): boolean {
    return this.pending.size >= this.max;
  }

  async append(event: events.UsageRecorded): Promise<void> {
    const line = `${JSON.stringify(events.UsageRecorded.toJSON(event))}\n`;
    await this.serial(async () => {
      await this.eventsFile?.appendFile(line);
      if (this.fsync) {
        await this.eventsFile?.datasync();
      }
      // Inside the same write step: a compaction queued behind it sees this event pending.
      this.pending.set(event.eventId, event);
    });
    this.kick();
  }

  /** Resolves once nothing is pending (tests, graceful stop). */
  whenIdle(): Promise<void> {
    if (this.pending.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.writes;
    await this.eventsFile?.close();
    await this.ackedFile?.close();
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const next = this.writes.then(step);
    this.writes = next.catch(() => undefined);
    return next;
  }

  private kick(): void {
    if (!this.draining && !this.closed) {
      this.draining = true;
      void this.drain();
    }
  }

  private async drain(): Promise<void> {
    let delay = 250;
    try {
      while (!this.closed) {
        const batch = [...this.pending.values()]
          .filter((event) => !this.inFlight.has(event.eventId))
          .slice(0, BATCH);
        if (batch.length === 0) {
          break;
        }
        const results = await Promise.allSettled(batch.map((event) => this.publishOne(event)));
        const failed = results.filter((result) => result.status === 'rejected');
        if (failed.length > 0) {
          this.log.warn(
            {
              failed: failed.length,
              pending: this.pending.size,
              err: (failed[0] as PromiseRejectedResult).reason,
            },
            'usage publish failed, will retry',
          );
          await new Promise((resolve) => {
            this.retryTimer = setTimeout(resolve, delay);
          });
          delay = Math.min(delay * 2, 5_000);
        } else {
          delay = 250;
        }
      }
    } finally {
      this.draining = false;
    }
    if (this.pending.size === 0) {
      await this.compactIfIdle();
    }
    if (this.pending.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) {
        resolve();
      }
    } else if (!this.closed) {
      this.kick();
    }
  }

  private async publishOne(event: events.UsageRecorded): Promise<void> {
    this.inFlight.add(event.eventId);
    try {
      await this.publish(event);
      await this.serial(async () => {
        await this.ackedFile?.appendFile(`${event.eventId}\n`);
      });
      this.pending.delete(event.eventId);
      this.ackedSinceCompaction += 1;
    } finally {
      this.inFlight.delete(event.eventId);
    }
  }

  /** With nothing pending, both files can start empty again. */
  private async compactIfIdle(): Promise<void> {
    if (this.ackedSinceCompaction === 0) {
      return;
    }
    await this.serial(async () => {
      if (this.pending.size === 0 && !this.closed) {
        await this.eventsFile?.truncate(0);
        await this.ackedFile?.truncate(0);
        this.ackedSinceCompaction = 0;
      }
    });
  }
}
