import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@gw/kit';
import { events } from '@gw/proto';
import { waitFor } from '@gw/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventLine, recordBytes } from '../src/store/outbox-layout.js';
import { FileUsageOutbox, type FileUsageOutboxOptions } from '../src/store/usage-outbox.js';

const FAST_RETRY = { firstMs: 1, maxMs: 4 };
const log = createLogger('proxy-test', 'silent');

const makeEvent = (index: number, overrides: Partial<events.UsageRecorded> = {}) =>
  events.UsageRecorded.fromPartial({
    // Fixed width, so every record has the same size.
    eventId: `evt_${String(index).padStart(7, '0')}`,
    accountId: 2n,
    ownerId: 1n,
    modelRequested: 'm',
    modelServed: 'm',
    keyId: 7n,
    level: 1,
    path: '/v1/chat/completions',
    status: 200,
    promptTokens: 10n,
    completionTokens: 5n,
    callCount: 1,
    latencyMs: 12n,
    at: new Date(0).toISOString(),
    ...overrides,
  });

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

describe('FileUsageOutbox', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-outbox-'));
    dirs.push(dir);
    return dir;
  };
  const outboxIn = (
    dir: string,
    publish: FileUsageOutboxOptions['publish'],
    more: Partial<FileUsageOutboxOptions> = {},
  ) => new FileUsageOutbox({ dir, max: 10, publish, log, retry: FAST_RETRY, ...more });
  const down = () => Promise.reject(new Error('nats down'));
  afterEach(() => {
    vi.restoreAllMocks();
    for (const dir of dirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('publishes each appended event and leaves nothing to replay once all are acknowledged', async () => {
    const dir = tempDir();
    const published: string[] = [];
    const outbox = outboxIn(dir, async (event) => void published.push(event.eventId));
    expect(await outbox.open()).toBe(0);
    await outbox.append(makeEvent(1));
    await outbox.append(makeEvent(2));
    await outbox.whenIdle();
    expect(published.sort()).toEqual([makeEvent(1).eventId, makeEvent(2).eventId]);
    expect(outbox.size).toBe(0);
    await outbox.close();

    const next = outboxIn(dir, async () => undefined);
    expect(await next.open()).toBe(0);
    await next.close();
  });

  it.each([false, true])(
    'keeps events while publishing fails and replays them, unchanged, after a restart (fsync %s)',
    async (fsync) => {
      const dir = tempDir();
      const first = outboxIn(dir, down, { fsync });
      await first.open();
      const event = makeEvent(1, { promptTokens: 123n, partial: true, modelRequested: 'modèle' });
      await first.append(event);
      expect(first.size).toBe(1);
      await first.close();

      const replayed: events.UsageRecorded[] = [];
      const second = outboxIn(dir, async (e) => void replayed.push(e), { fsync });
      expect(await second.open()).toBe(1);
      await second.whenIdle();
      expect(replayed).toEqual([event]);
      await second.close();

      const third = outboxIn(dir, async () => undefined);
      expect(await third.open()).toBe(0);
      await third.close();
    },
  );

  it('does not replay events whose acknowledgement was written before a restart', async () => {
    const dir = tempDir();
    let fail = false;
    const outbox = outboxIn(dir, () => (fail ? down() : Promise.resolve()));
    await outbox.open();
    await outbox.append(makeEvent(1));
    await outbox.whenIdle();
    fail = true;
    await outbox.append(makeEvent(2));
    await outbox.close();

    const replayed: string[] = [];
    const next = outboxIn(dir, async (e) => void replayed.push(e.eventId));
    await next.open();
    await next.whenIdle();
    expect(replayed).toEqual([makeEvent(2).eventId]);
    await next.close();
  });

  it('reports full once the backlog reaches its bound', async () => {
    const outbox = outboxIn(tempDir(), down, { max: 2 });
    await outbox.open();
    await outbox.append(makeEvent(1));
    expect(outbox.isFull()).toBe(false);
    await outbox.append(makeEvent(2));
    expect(outbox.isFull()).toBe(true);
    await outbox.close();
  });

  it('skips a torn last line with a warning and replays the events before it', async () => {
    const dir = tempDir();
    const first = outboxIn(dir, down);
    await first.open();
    await first.append(makeEvent(1));
    await first.append(makeEvent(2));
    await first.close();
    const [segment] = readdirSync(dir);
    appendFileSync(join(dir, segment ?? ''), eventLine(makeEvent(3)).slice(0, 60));

    const published: string[] = [];
    const second = outboxIn(dir, async (e) => void published.push(e.eventId));
    const warn = vi.spyOn(log, 'warn');
    expect(await second.open()).toBe(2);
    expect(warn).toHaveBeenCalledWith({ file: segment }, 'skipping an unreadable outbox line');
    await second.whenIdle();
    expect(published).toEqual([makeEvent(1).eventId, makeEvent(2).eventId]);
    await second.close();

    const third = outboxIn(dir, async () => undefined);
    warn.mockClear();
    expect(await third.open()).toBe(0);
    expect(warn).not.toHaveBeenCalled();
    await third.close();
  });

  it('replays what the single-file outbox of earlier versions left', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'events.jsonl'), eventLine(makeEvent(1)) + eventLine(makeEvent(2)));
    writeFileSync(join(dir, 'acked.log'), `${makeEvent(1).eventId}\n`);
    const published: string[] = [];
    const outbox = outboxIn(dir, async (e) => void published.push(e.eventId));
    expect(await outbox.open()).toBe(1);
    await outbox.whenIdle();
    expect(published).toEqual([makeEvent(2).eventId]);
    expect(existsSync(join(dir, 'events.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'acked.log'))).toBe(false);
    await outbox.close();
  });

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
      await outbox.append(event);
      oldest ||= readdirSync(dir)[0] ?? '';
      for (let filler = 1; filler <= 20; filler += 1) {
        await outbox.append(makeEvent(indexOf(event.eventId) + filler));
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
          step.push(outbox.append(makeEvent(appended)));
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
