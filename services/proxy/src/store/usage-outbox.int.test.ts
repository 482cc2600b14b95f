import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@gw/kit';
import type { events } from '@gw/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { FileUsageOutbox } from './usage-outbox.js';

const log = createLogger('proxy-test', 'silent');

function makeEvent(overrides: Partial<events.UsageRecorded> = {}): events.UsageRecorded {
  return {
    eventId: `evt_${Math.random().toString(36).slice(2)}`,
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
    cachedTokens: 0n,
    cacheWriteTokens: 0n,
    reasoningTokens: 0n,
    audioInTokens: 0n,
    audioOutTokens: 0n,
    imageInTokens: 0n,
    imageOutTokens: 0n,
    imageCount: 0,
    imageSize: '',
    callCount: 1,
    latencyMs: 12n,
    at: new Date(0).toISOString(),
    partial: false,
    estimated: false,
    audioMs: 0n,
    ...overrides,
  };
}

describe('FileUsageOutbox', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-outbox-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('publishes each appended event and empties its files once all are acknowledged', async () => {
    const dir = tempDir();
    const published: string[] = [];
    const outbox = new FileUsageOutbox(dir, 10, async (event) => void published.push(event.eventId), log);
    await outbox.open();
    const a = makeEvent();
    const b = makeEvent();
    await outbox.append(a);
    await outbox.append(b);
    await outbox.whenIdle();
    expect(published.sort()).toEqual([a.eventId, b.eventId].sort());
    expect(outbox.size).toBe(0);
    await outbox.close();
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe('');
  });

  it('keeps events while publishing fails and replays them, unchanged, after a restart', async () => {
    const dir = tempDir();
    const first = new FileUsageOutbox(dir, 10, () => Promise.reject(new Error('nats down')), log);
    await first.open();
    const event = makeEvent({ promptTokens: 123n, partial: true });
    await first.append(event);
    expect(first.size).toBe(1);
    await first.close();

    const replayed: events.UsageRecorded[] = [];
    const second = new FileUsageOutbox(dir, 10, async (e) => void replayed.push(e), log);
    expect(await second.open()).toBe(1);
    await second.whenIdle();
    expect(replayed).toEqual([event]);
    await second.close();

    const third = new FileUsageOutbox(dir, 10, async () => undefined, log);
    expect(await third.open()).toBe(0);
    await third.close();
  });

  it('does not replay events whose acknowledgement was written before a crash', async () => {
    const dir = tempDir();
    let fail = false;
    const outbox = new FileUsageOutbox(
      dir,
      10,
      () => (fail ? Promise.reject(new Error('down')) : Promise.resolve()),
      log,
    );
    await outbox.open();
    const acked = makeEvent();
    await outbox.append(acked);
    await outbox.whenIdle();
    fail = true;
    const pending = makeEvent();
    await outbox.append(pending);
    await outbox.close();

    const replayed: string[] = [];
    const next = new FileUsageOutbox(dir, 10, async (e) => void replayed.push(e.eventId), log);
    await next.open();
    await next.whenIdle();
    expect(replayed).toEqual([pending.eventId]);
    await next.close();
  });

  it('reports full once the backlog reaches its bound', async () => {
    const outbox = new FileUsageOutbox(tempDir(), 2, () => Promise.reject(new Error('down')), log);
    await outbox.open();
    await outbox.append(makeEvent());
    expect(outbox.isFull()).toBe(false);
    await outbox.append(makeEvent());
    expect(outbox.isFull()).toBe(true);
    await outbox.close();
  });
});
