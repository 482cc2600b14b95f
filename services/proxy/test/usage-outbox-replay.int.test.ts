import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { events } from '@gw/proto';
import { describe, expect, it, vi } from 'vitest';
import { eventJson, eventLine } from '../src/store/outbox-layout.js';
import { log, makeEvent, useOutboxDirs } from './usage-outbox-fixture.js';

/**
 * The outbox files in a temporary folder: every event published, the unacknowledged ones replayed
 * unchanged after a restart, the backlog bound, a torn last line and the files of earlier versions.
 */
describe('FileUsageOutbox: publish, acknowledge and replay', () => {
  const { down, outboxIn, tempDir } = useOutboxDirs();

  it("publishes each appended event with its call's request id and leaves nothing to replay once all are acknowledged", async () => {
    const dir = tempDir();
    const published: string[] = [];
    const bodies: Array<{ event: events.UsageRecorded; json: string }> = [];
    const outbox = outboxIn(dir, async (event, requestId, json) => {
      published.push(`${event.eventId} ${requestId}`);
      bodies.push({ event, json });
    });
    expect(await outbox.open()).toBe(0);
    await outbox.append(makeEvent(1), 'req_first');
    await outbox.append(makeEvent(2), 'req_second');
    await outbox.whenIdle();
    expect(published.sort()).toEqual([
      `${makeEvent(1).eventId} req_first`,
      `${makeEvent(2).eventId} req_second`,
    ]);
    // Each body is the JSON written to disk, and it reads back as its event.
    for (const { event, json } of bodies) {
      expect(json).toBe(eventJson(event));
      expect(events.UsageRecorded.fromJSON(JSON.parse(json))).toEqual(event);
    }
    expect(bodies).toHaveLength(2);
    expect(outbox.size).toBe(0);
    await outbox.close();

    const next = outboxIn(dir, async () => undefined);
    expect(await next.open()).toBe(0);
    await next.close();
  });

  it('publishes a retried event with the request id it was appended with', async () => {
    const tries: string[] = [];
    const outbox = outboxIn(tempDir(), async (event, requestId) => {
      tries.push(`${event.eventId} ${requestId}`);
      if (tries.length === 1) {
        await down();
      }
    });
    await outbox.open();
    await outbox.append(makeEvent(1), 'req_retried');
    await outbox.whenIdle();
    expect(tries).toEqual([`${makeEvent(1).eventId} req_retried`, `${makeEvent(1).eventId} req_retried`]);
    await outbox.close();
  });

  it.each([false, true])(
    'keeps events while publishing fails and replays them, unchanged, after a restart (fsync %s)',
    async (fsync) => {
      const dir = tempDir();
      const first = outboxIn(dir, down, { fsync });
      await first.open();
      const event = makeEvent(1, { promptTokens: 123n, partial: true, modelRequested: 'modèle' });
      await first.append(event, 'req_before_restart');
      expect(first.size).toBe(1);
      await first.close();

      const replayed: events.UsageRecorded[] = [];
      const requestIds: Array<string | undefined> = [];
      const second = outboxIn(
        dir,
        async (e, requestId) => {
          replayed.push(e);
          requestIds.push(requestId);
        },
        { fsync },
      );
      expect(await second.open()).toBe(1);
      await second.whenIdle();
      expect(replayed).toEqual([event]);
      // The files keep the event alone: a replay is published with a new request id.
      expect(requestIds).toEqual([undefined]);
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
    await outbox.append(makeEvent(1), 'req_test');
    await outbox.whenIdle();
    fail = true;
    await outbox.append(makeEvent(2), 'req_test');
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
    await outbox.append(makeEvent(1), 'req_test');
    expect(outbox.isFull()).toBe(false);
    await outbox.append(makeEvent(2), 'req_test');
    expect(outbox.isFull()).toBe(true);
    await outbox.close();
  });

  it('skips a torn last line with a warning and replays the events before it', async () => {
    const dir = tempDir();
    const first = outboxIn(dir, down);
    await first.open();
    await first.append(makeEvent(1), 'req_test');
    await first.append(makeEvent(2), 'req_test');
    await first.close();
    const [segment] = readdirSync(dir);
    appendFileSync(join(dir, segment ?? ''), eventLine(eventJson(makeEvent(3))).slice(0, 60));

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
    writeFileSync(
      join(dir, 'events.jsonl'),
      eventLine(eventJson(makeEvent(1))) + eventLine(eventJson(makeEvent(2))),
    );
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
});
