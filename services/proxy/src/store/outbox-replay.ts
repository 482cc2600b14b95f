import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@gw/kit';
import type { events } from '@gw/proto';
import { readLines } from './outbox-file.js';
import { parseLine, segmentSeq, type OutboxRecord } from './outbox-layout.js';

/** A proxy from before segments kept one file of events and one of acknowledged ids. */
const LEGACY_EVENTS = 'events.jsonl';
const LEGACY_ACKED = 'acked.log';

export interface PreviousRun {
  /** Events written and never acknowledged, each once, in the order first written. */
  waiting: events.UsageRecorded[];
  /** The files read: delete them once the waiting events are written again. */
  files: string[];
  /** The highest segment number found (0 for none): new segments continue after it. */
  lastSeq: number;
}

/**
 * Reads what a previous run left in `dir`, one line at a time. An event may be in two segments
 * (a crash between copying it forward and deleting the old segment) and its acknowledgement may
 * be in either: both are matched by event id across all files.
 */
export async function readPreviousRun(dir: string, log: Logger): Promise<PreviousRun> {
  const names = await readdir(dir);
  const segments = names
    .flatMap((name) => {
      const seq = segmentSeq(name);
      return seq === undefined ? [] : [{ name, seq }];
    })
    .sort((a, b) => a.seq - b.seq);
  const waiting = new Map<string, events.UsageRecorded>();
  const acked = new Set<string>();
  const take = (record: OutboxRecord) => {
    if (record.kind === 'acked') {
      acked.add(record.eventId);
      waiting.delete(record.eventId);
    } else if (!acked.has(record.event.eventId) && !waiting.has(record.event.eventId)) {
      waiting.set(record.event.eventId, record.event);
    }
  };

  const files: string[] = [];
  if (names.includes(LEGACY_ACKED)) {
    files.push(join(dir, LEGACY_ACKED));
    for await (const line of readLines(join(dir, LEGACY_ACKED))) {
      if (line !== '') {
        take({ kind: 'acked', eventId: line });
      }
    }
  }
  const eventFiles = [
    ...(names.includes(LEGACY_EVENTS) ? [LEGACY_EVENTS] : []),
    ...segments.map((s) => s.name),
  ];
  for (const name of eventFiles) {
    const path = join(dir, name);
    files.push(path);
    for await (const line of readLines(path)) {
      const record = line === '' ? undefined : parseLine(line);
      if (record) {
        take(record);
      } else if (line !== '') {
        // A torn last line from a crash mid-write: an event whose call was never answered, or an
        // acknowledgement (its event is published again, a duplicate JetStream drops).
        log.warn({ file: name }, 'skipping an unreadable outbox line');
      }
    }
  }
  return { waiting: [...waiting.values()], files, lastSeq: segments.at(-1)?.seq ?? 0 };
}
