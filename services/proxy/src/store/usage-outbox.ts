import type { Logger } from '@gw/kit';
import type { events } from '@gw/proto';
import type { UsageOutbox } from '../domain/ports/usage-outbox.js';
import { SegmentStore, type SegmentLimits } from './outbox-segments.js';

/**
 * Publishes one event durably (JetStream, message id = event id) with its call's request id when
 * known; resolves on the stream's ack. `json` is the event as the outbox wrote it (`eventJson`),
 * so it is serialised once.
 */
export type PublishUsage = (
  event: events.UsageRecorded,
  requestId: string | undefined,
  json: string,
) => Promise<void>;

export interface FileUsageOutboxOptions {
  dir: string;
  /** New AI calls are refused while this many events wait (PROXY_OUTBOX_MAX). */
  max: number;
  publish: PublishUsage;
  log: Logger;
  /** Flush every write to disk (PROXY_OUTBOX_FSYNC). */
  fsync?: boolean;
  /** Segment size and count; the defaults are what services/proxy/README.md states. */
  limits?: SegmentLimits;
  /** Pause after a batch in which every publish failed: doubles from `firstMs` up to `maxMs`. */
  retry?: { firstMs: number; maxMs: number };
}

const DEFAULT_LIMITS: SegmentLimits = { segmentBytes: 1024 * 1024, maxSealed: 4 };
const DEFAULT_RETRY = { firstMs: 250, maxMs: 5_000 };
const BATCH = 64;
/**
 * An idle outbox starts publishing this long after the event that woke it, so that at low
 * concurrency the events of several calls share one NATS write, one round of acknowledgements and
 * one write of them to disk. Billing gathers its batches for far longer than this.
 */
const GATHER_MS = 20;

/**
 * docs/decisions.md §5: every usage event is written to a segment file before it is published;
 * JetStream's acknowledgement is written next to it, and segments are deleted or compacted while
 * traffic flows (`SegmentStore`). At start the unacknowledged events are read back, streamed, and
 * published again; JetStream drops any that it already had through the message id. Durable
 * against a process crash (the kernel holds written data); an OS crash needs `fsync`.
 */
export class FileUsageOutbox implements UsageOutbox {
  private store?: SegmentStore;
  /** Ids written and waiting to be published (not in flight), in the order to try them. */
  private readonly ready = new Set<string>();
  /**
   * The request id of each event appended by this process until it is acknowledged (the files
   * keep events only: an event replayed after a restart is published with a new one).
   */
  private readonly requestIds = new Map<string, string>();
  private draining = false;
  private drained: Promise<void> = Promise.resolve();
  private closed = false;
  private retryTimer?: NodeJS.Timeout;
  private endRetryPause?: () => void;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: FileUsageOutboxOptions) {}

  /** Reads what a previous run left and starts publishing it; resolves to how many events wait. */
  async open(): Promise<number> {
    const { store, waiting } = await SegmentStore.open(
      this.options.dir,
      this.options.limits ?? DEFAULT_LIMITS,
      this.options.fsync ?? false,
      this.options.log,
    );
    this.store = store;
    if (waiting.length > 0) {
      this.options.log.info({ pending: waiting.length }, 'replaying usage outbox');
      for (const event of waiting) {
        this.ready.add(event.eventId);
      }
      this.kick();
    }
    return waiting.length;
  }

  get size(): number {
    return this.store?.size ?? 0;
  }

  isFull(): boolean {
    return this.size >= this.options.max;
  }

  async append(event: events.UsageRecorded, requestId: string): Promise<void> {
    if (!this.store || this.closed) {
      throw new Error('usage outbox is not open');
    }
    this.requestIds.set(event.eventId, requestId);
    try {
      await this.store.add(event);
    } finally {
      // Published even when the disk write failed: billed unless the process dies first.
      this.ready.add(event.eventId);
      this.kick();
    }
  }

  /** Resolves once nothing is pending (tests, graceful stop). */
  whenIdle(): Promise<void> {
    if (this.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops publishing, records the acknowledgements of publishes in flight, closes the files. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.endRetryPause?.();
    await this.drained;
    await this.store?.close();
  }

  private kick(): void {
    if (!this.draining && !this.closed) {
      this.draining = true;
      this.drained = this.pause(GATHER_MS).then(() => this.drain());
    }
  }

  private async drain(): Promise<void> {
    const retry = this.options.retry ?? DEFAULT_RETRY;
    let delay = retry.firstMs;
    try {
      while (!this.closed && this.ready.size > 0) {
        const batch = this.takeBatch();
        const results = await Promise.allSettled(batch.map((eventId) => this.publishOne(eventId)));
        const failed = batch.filter((_, index) => results[index]?.status === 'rejected');
        for (const eventId of failed) {
          this.ready.add(eventId);
        }
        this.wakeIdleWaiters();
        if (failed.length === 0) {
          delay = retry.firstMs;
          continue;
        }
        const firstError: unknown = results.find((result) => result.status === 'rejected')?.reason;
        this.options.log.warn(
          { failed: failed.length, pending: this.size, err: firstError },
          'usage publish failed, will retry',
        );
        // A batch where every publish failed looks like an outage: pause before the next try.
        // Otherwise the failed events go to the back of the line and the others keep flowing.
        if (failed.length === batch.length) {
          await this.pause(delay);
          delay = Math.min(delay * 2, retry.maxMs);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private takeBatch(): string[] {
    const batch: string[] = [];
    for (const eventId of this.ready) {
      batch.push(eventId);
      if (batch.length === BATCH) {
        break;
      }
    }
    for (const eventId of batch) {
      this.ready.delete(eventId);
    }
    return batch;
  }

  private async publishOne(eventId: string): Promise<void> {
    const stored = this.store?.stored(eventId);
    if (stored) {
      await this.options.publish(stored.event, this.requestIds.get(eventId), stored.json);
      this.store?.acknowledge(eventId);
    }
    this.requestIds.delete(eventId);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.endRetryPause = resolve;
      this.retryTimer = setTimeout(resolve, ms);
    });
  }

  private wakeIdleWaiters(): void {
    if (this.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) {
        resolve();
      }
    }
  }
}
