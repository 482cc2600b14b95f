import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@gw/kit';
import { events } from '@gw/proto';
import { afterEach, vi } from 'vitest';
import { FileUsageOutbox, type FileUsageOutboxOptions } from '../src/store/usage-outbox.js';

const FAST_RETRY = { firstMs: 1, maxMs: 4 };
export const log = createLogger('proxy-test', 'silent');

export const makeEvent = (index: number, overrides: Partial<events.UsageRecorded> = {}) =>
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

/**
 * Temporary outbox folders for the calling test file, removed (and spies restored) after each
 * test: `tempDir()` makes one, `outboxIn(dir, publish)` opens an outbox there that retries fast,
 * and `down` is a publish that always fails.
 */
export function useOutboxDirs() {
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
  return { tempDir, outboxIn, down };
}
