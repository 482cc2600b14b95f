import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { events } from '@gw/proto';
import { waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { recordBytes } from '../src/store/outbox-layout.js';
import type { FileUsageOutbox } from '../src/store/usage-outbox.js';
import { makeEvent, useOutboxDirs } from './usage-outbox-fixture.js';

const indexOf = (eventId: string) => Number(eventId.slice('evt_'.length));

/** Bytes of every file in the directory now (a file deleted while we look counts 0). */
function directoryBytes(dir: string): number {
  return readdirSync(dir).reduce(
    (total, name) => total + (statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0),
    0,
  );
}

const filesHolding = (dir: string, eventId: string) =>
  readdirSync(dir).filter((name) => readFileSync(join(dir, name), 'utf8').includes(`"${eventId}"`));

/**
 * The outbox's disk use while traffic flows: an old segment held open by a pending event is
 * compacted, and 200 000 events stay within the bound services/proxy/README.md states.
 */
describe('FileUsageOutbox: compaction and its disk bound', () => {
  const { down, outboxIn, tempDir } = useOutboxDirs();

  it('copies an old segment held open by one pending event forward into the active one, then deletes it', async () => {
    const dir = tempDir();
    const held = new Set<string>();
    const outbox = outboxIn(dir, (e) => (held.has(e.eventId) ? down() : Promise.resolve()), {
      max: 1_000,
      // About six records a segment; a third sealed segment with a pending event is one too many.
      limits: { segmentBytes: 4096, maxSealed: 2 },
    });
    await outbox.open();
    const stuck = [0, 100, 200].map((index) => makeEvent(index));
    let oldest = '';
    for (const event of stuck) {
      held.add(event.eventId);
      await outbox.append(event, 'req_test');
      oldest ||= readdirSync(dir)[0] ?? '';
      for (let filler = 1; filler <= 20; filler += 1) {
        await outbox.append(makeEvent(indexOf(event.eventId) + filler), 'req_test');
      }
    }
    const files = () => readdirSync(dir).sort();
    await waitFor(
      async () => outbox.size === 3 && !files().includes(oldest) && files().length <= 3,
      'the oldest segment compacted',
      10_000,
      5,
    );
    const [copiedTo] = filesHolding(dir, stuck[0]?.eventId ?? '');
    expect(filesHolding(dir, stuck[0]?.eventId ?? '')).toHaveLength(1);
    expect((copiedTo ?? '') > oldest).toBe(true);
    await outbox.close();

    const replayed: string[] = [];
    const next = outboxIn(dir, async (e) => void replayed.push(e.eventId), { max: 1_000 });
    expect(await next.open()).toBe(3);
    await next.whenIdle();
    expect(replayed.sort()).toEqual(stuck.map((event) => event.eventId));
    await next.close();
  });

  it('under 200 000 events at a steady rate stays within its disk bound, publishes every event, and replays exactly the unacknowledged ones after a restart mid-run', async () => {
    const dir = tempDir();
    const limits = { segmentBytes: 64 * 1024, maxSealed: 4 };
    const total = 200_000;
    const restartAt = 100_000;
    const chunk = 100;
    // Every record has the same size (fixed-width ids): the README's R.
    const record = recordBytes(makeEvent(0));
    const segment = limits.segmentBytes + record;

    let appended = 0;
    let run = 1;
    let attempts = 0;
    let peakWaiting = 0;
    const published = new Set<string>();
    const replayed = new Set<string>();
    // services/proxy/README.md: at most max(K·(S+R), 2·W) + 3·(S+R), W the most bytes waiting so far.
    const bound = () => Math.max(limits.maxSealed * segment, 2 * peakWaiting * record) + 3 * segment;
    const samples: Array<{ bytes: number; bound: number }> = [];
    const sample = () => samples.push({ bytes: directoryBytes(dir), bound: bound() });

    const publish = async (event: events.UsageRecorded) => {
      attempts += 1;
      if (attempts % 250 === 0) {
        sample();
      }
      const index = indexOf(event.eventId);
      if (run === 2 && index < restartAt) {
        replayed.add(event.eventId);
      }
      await Promise.resolve();
      // A flaky connection: one publish in 97 fails.
      if (attempts % 97 === 0) {
        throw new Error('flaky');
      }
      // An outage just before the restart: everything fails, thousands of events wait.
      if (run === 1 && appended >= restartAt - 5_000) {
        throw new Error('nats down');
      }
      // One event in 200 is refused until 5 000 more were appended: it stays behind in an old
      // segment, 25 of them at a time, more than the sealed segments allowed.
      if (index % 200 === 100 && appended < Math.min(index + 5_000, total)) {
        throw new Error('refused for now');
      }
      published.add(event.eventId);
    };

    const runUntil = async (outbox: FileUsageOutbox, end: number) => {
      while (appended < end) {
        while (outbox.isFull()) {
          await new Promise(setImmediate);
        }
        // No more can wait during this step than what waits now plus what it appends.
        peakWaiting = Math.max(peakWaiting, outbox.size + chunk);
        const step: Promise<void>[] = [];
        for (let i = 0; i < chunk; i += 1) {
          step.push(outbox.append(makeEvent(appended), 'req_test'));
          appended += 1;
        }
        await Promise.all(step);
        sample();
        await new Promise(setImmediate);
      }
    };

    const first = outboxIn(dir, publish, { max: 10_000, limits });
    await first.open();
    await runUntil(first, restartAt);
    // Stop without waiting for the backlog, as a restart does.
    await first.close();
    sample();
    const unacknowledged = new Set<string>();
    for (let index = 0; index < restartAt; index += 1) {
      if (!published.has(makeEvent(index).eventId)) {
        unacknowledged.add(makeEvent(index).eventId);
      }
    }
    expect(unacknowledged.size).toBeGreaterThan(4_000);

    run = 2;
    const second = outboxIn(dir, publish, { max: 10_000, limits });
    expect(await second.open()).toBe(unacknowledged.size);
    peakWaiting = Math.max(peakWaiting, second.size);
    sample();
    await runUntil(second, total);
    await second.whenIdle();
    await second.close();
    sample();

    expect(published.size).toBe(total);
    expect(replayed).toEqual(unacknowledged);
    expect(samples.length).toBeGreaterThan(1_000);
    expect(samples.filter((taken) => taken.bytes > taken.bound)).toEqual([]);
    // Once every event is acknowledged, only the active segment is left.
    expect(samples.at(-1)?.bytes).toBeLessThanOrEqual(segment);
  });
});
