import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@gw/kit';
import type { events } from '@gw/proto';
import { AppendFile, syncDirectory } from './outbox-file.js';
import {
  ackLine,
  eventJson,
  eventLine,
  recordBytes,
  segmentName,
  segmentToCompact,
} from './outbox-layout.js';
import { readPreviousRun } from './outbox-replay.js';

export interface SegmentLimits {
  /** A segment is sealed, and a new one started, once this many bytes are written or reserved. */
  segmentBytes: number;
  /** More sealed segments than this are compacted (see `segmentToCompact`). */
  maxSealed: number;
}

interface Segment {
  readonly file: AppendFile;
  /** Bytes written, plus those reserved for the acknowledgements of its waiting events. */
  bytes: number;
  /** The records (`recordBytes`) of the events in `waiting`. */
  waitingBytes: number;
  /** Ids of the events this segment holds that wait for an acknowledgement. */
  readonly waiting: Set<string>;
}

/** An event written and waiting, with the JSON it was written as (and is published as). */
export interface StoredEvent {
  readonly event: events.UsageRecorded;
  readonly json: string;
}

interface Entry extends StoredEvent {
  readonly bytes: number;
  segment: Segment;
}

/**
 * The outbox's files (docs/decisions.md §5): events are appended to the active segment, which is
 * sealed once it holds `segmentBytes`; an acknowledgement goes to the segment holding its event; a
 * sealed segment with nothing waiting is deleted; and when more than `maxSealed` sealed segments
 * remain, the oldest one that is at most half waiting has its waiting events copied into the
 * active segment, then is deleted. File changes (deleting, copying forward) run one at a time in
 * the background; an append waits for them only when the active segment is full.
 */
export class SegmentStore {
  private readonly entries = new Map<string, Entry>();
  /** Oldest first. */
  private readonly sealed: Segment[] = [];
  private active: Segment;
  private tidying = false;
  /** Counts requests, so a run can tell whether one came in while it worked. */
  private tidyRequests = 0;
  private tidied: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly dir: string,
    private nextSeq: number,
    private readonly limits: SegmentLimits,
    private readonly fsync: boolean,
    private readonly log: Logger,
  ) {
    this.active = this.newSegment();
  }

  /**
   * Reads what a previous run left, writes the events still waiting into new segments, then
   * deletes the old files (a crash in between leaves copies that the next start de-duplicates).
   */
  static async open(
    dir: string,
    limits: SegmentLimits,
    fsync: boolean,
    log: Logger,
  ): Promise<{ store: SegmentStore; waiting: events.UsageRecorded[] }> {
    await mkdir(dir, { recursive: true });
    const previous = await readPreviousRun(dir, log);
    const store = new SegmentStore(dir, previous.lastSeq + 1, limits, fsync, log);
    await Promise.all(previous.waiting.map((event) => store.add(event)));
    await Promise.all(previous.files.map((file) => unlink(file)));
    if (fsync && previous.files.length > 0) {
      await syncDirectory(dir);
    }
    return { store, waiting: previous.waiting };
  }

  /** Events written (or being written) and not yet acknowledged. */
  get size(): number {
    return this.entries.size;
  }

  stored(eventId: string): StoredEvent | undefined {
    return this.entries.get(eventId);
  }

  /** Writes the event to the active segment; resolves once it is written. */
  async add(event: events.UsageRecorded): Promise<void> {
    const json = eventJson(event);
    // A full segment is sealed only between file changes, so those see a stable set of segments.
    while (this.tidying && this.active.bytes >= this.limits.segmentBytes) {
      await this.tidied;
    }
    if (this.closed) {
      throw new Error('usage outbox is closed');
    }
    const bytes = recordBytes(event, json);
    const segment = this.reserve(bytes);
    this.entries.set(event.eventId, { event, json, bytes, segment });
    segment.waiting.add(event.eventId);
    segment.waitingBytes += bytes;
    await segment.file.write(eventLine(json));
  }

  /** JetStream has the event: records that in its segment, which may then go. */
  acknowledge(eventId: string): void {
    const entry = this.entries.get(eventId);
    if (!entry) {
      return;
    }
    this.entries.delete(eventId);
    const segment = entry.segment;
    segment.waiting.delete(eventId);
    segment.waitingBytes -= entry.bytes;
    this.writeAck(segment, eventId);
    const deletable = segment !== this.active && segment.waiting.size === 0;
    if (deletable || segmentToCompact(this.sealed, this.limits.maxSealed) >= 0) {
      this.tidy();
    }
  }

  /** Finishes the file change under way and closes every file (what is queued gets written). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.tidying) {
      await this.tidied;
    }
    await Promise.all([...this.sealed, this.active].map((segment) => segment.file.close()));
  }

  private newSegment(): Segment {
    const path = join(this.dir, segmentName(this.nextSeq));
    this.nextSeq += 1;
    return { file: new AppendFile(path, this.fsync), bytes: 0, waitingBytes: 0, waiting: new Set() };
  }

  /** The segment a record of `bytes` goes to: the active one, sealed first when full. */
  private reserve(bytes: number): Segment {
    if (this.active.bytes >= this.limits.segmentBytes) {
      this.sealed.push(this.active);
      this.active = this.newSegment();
      this.tidy();
    }
    this.active.bytes += bytes;
    return this.active;
  }

  private writeAck(segment: Segment, eventId: string): void {
    segment.file.write(ackLine(eventId)).catch((error: unknown) => {
      // Only costs a duplicate: the event is published again after a restart.
      this.log.warn({ err: error, eventId }, 'could not record a usage acknowledgement');
    });
  }

  /** Starts the file changes, or asks the run under way to look again when it ends. */
  private tidy(): void {
    this.tidyRequests += 1;
    if (this.tidying) {
      return;
    }
    this.tidying = true;
    this.tidied = this.runTidy();
  }

  private async runTidy(): Promise<void> {
    try {
      let handled: number;
      do {
        handled = this.tidyRequests;
        for (const segment of this.sealed.filter((sealed) => sealed.waiting.size === 0)) {
          await this.remove(segment);
        }
        let next = segmentToCompact(this.sealed, this.limits.maxSealed);
        while (next >= 0 && (await this.copyForward(this.sealed[next] as Segment))) {
          next = segmentToCompact(this.sealed, this.limits.maxSealed);
        }
      } while (this.tidyRequests !== handled);
    } finally {
      this.tidying = false;
    }
  }

  /**
   * Copies the waiting events of an old segment into the active one and deletes the old one once
   * the copies are written. Acknowledgements arriving meanwhile still go to the old segment and
   * are repeated next to their copy.
   */
  private async copyForward(from: Segment): Promise<boolean> {
    const copies = [...from.waiting].flatMap((eventId) => {
      const entry = this.entries.get(eventId);
      if (!entry) {
        return [];
      }
      const target = this.reserve(entry.bytes);
      return [{ eventId, entry, target, written: target.file.write(eventLine(entry.json)) }];
    });
    try {
      await Promise.all(copies.map((copy) => copy.written));
    } catch (error) {
      this.log.error({ err: error }, 'could not compact the usage outbox; keeping the old segment');
      return false;
    }
    for (const { eventId, entry, target } of copies) {
      if (this.entries.get(eventId) !== entry) {
        this.writeAck(target, eventId);
      } else if (entry.segment === from) {
        from.waiting.delete(eventId);
        from.waitingBytes -= entry.bytes;
        target.waiting.add(eventId);
        target.waitingBytes += entry.bytes;
        entry.segment = target;
      }
    }
    await this.remove(from);
    this.log.debug({ file: from.file.path, moved: copies.length }, 'usage outbox segment compacted');
    return true;
  }

  private async remove(segment: Segment): Promise<void> {
    if (!this.sealed.includes(segment)) {
      return;
    }
    try {
      await segment.file.close();
      await unlink(segment.file.path);
    } catch (error) {
      // What it held is acknowledged or copied: at worst a duplicate after a restart.
      this.log.warn({ err: error, file: segment.file.path }, 'could not delete a usage outbox segment');
    }
    this.sealed.splice(this.sealed.indexOf(segment), 1);
  }
}
