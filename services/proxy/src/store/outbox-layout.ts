import { events } from '@gw/proto';

/**
 * The usage outbox's on-disk format, without the disk (docs/decisions.md §5). The outbox is a
 * series of segment files; each line is a JSON record: a usage event, or the acknowledgement of an
 * event JetStream has stored. An acknowledgement is written to the segment that holds its event,
 * so every segment can be judged, and deleted, on its own.
 */

/** One line of a segment file. */
export type OutboxRecord =
  { kind: 'event'; event: events.UsageRecorded } | { kind: 'acked'; eventId: string };

/** The event as JSON: its line's text, and the body it is published with. */
export function eventJson(event: events.UsageRecorded): string {
  return JSON.stringify(events.UsageRecorded.toJSON(event));
}

export function eventLine(json: string): string {
  return `${json}\n`;
}

export function ackLine(eventId: string): string {
  return `${JSON.stringify({ acked: eventId })}\n`;
}

/**
 * Disk bytes an event may take in its segment: its own line plus the acknowledgement that will
 * follow it. Counting the acknowledgement up front keeps a sealed segment within its size.
 */
export function recordBytes(event: events.UsageRecorded, json = eventJson(event)): number {
  // The event's line is its JSON and a newline (one byte).
  return Buffer.byteLength(json) + 1 + Buffer.byteLength(ackLine(event.eventId));
}

/** The record on one line, or undefined for a line that is not one (torn by a crash mid-write). */
export function parseLine(line: string): OutboxRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  if ('acked' in value) {
    return typeof value.acked === 'string' && value.acked !== ''
      ? { kind: 'acked', eventId: value.acked }
      : undefined;
  }
  const event = events.UsageRecorded.fromJSON(value);
  return event.eventId ? { kind: 'event', event } : undefined;
}

const SEGMENT_NAME = /^segment-(\d{12})\.jsonl$/;

/** Segment files sort by name in the order they were created. */
export function segmentName(seq: number): string {
  return `segment-${String(seq).padStart(12, '0')}.jsonl`;
}

/** The sequence number of a segment file, or undefined for any other file. */
export function segmentSeq(fileName: string): number | undefined {
  const match = SEGMENT_NAME.exec(fileName);
  return match ? Number(match[1]) : undefined;
}

/** What the compaction rule needs to know of a sealed segment (bytes counted as in `recordBytes`). */
export interface SegmentUsage {
  /** Everything written to it, acknowledgements included. */
  bytes: number;
  /** The records of its events still waiting for an acknowledgement. */
  waitingBytes: number;
}

/**
 * Which sealed segment (oldest first) to copy forward into the active one and delete, or -1.
 * Only when more than `maxSealed` remain, and only a segment at most half waiting: copying it
 * frees at least as much as it writes, so compaction always shrinks the outbox and never churns
 * while a publishing outage keeps every segment full.
 */
export function segmentToCompact(sealed: readonly SegmentUsage[], maxSealed: number): number {
  if (sealed.length <= maxSealed) {
    return -1;
  }
  return sealed.findIndex((segment) => segment.waitingBytes * 2 <= segment.bytes);
}
