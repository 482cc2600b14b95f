import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendFile } from '../src/store/outbox-file.js';
import { useOutboxDirs } from './usage-outbox-fixture.js';

const lines = Array.from({ length: 200 }, (_, index) => `line ${index}\n`);

/** Write system calls this thread has made (Linux): counts writes without spying on `fs`. */
const writeCalls = () => Number(/syscw: (\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))?.[1]);

/**
 * The outbox's append-only file in a temporary folder: what one turn of the event loop queues is
 * written together, in order, before any caller hears back; a failed write rejects its batch.
 */
describe('AppendFile', () => {
  const { tempDir } = useOutboxDirs();

  it.each([false, true])(
    'writes what one turn queues in one write, in order, before any of its callers resolve (fsync %s)',
    async (fsync) => {
      const path = join(tempDir(), 'segment');
      const file = new AppendFile(path, fsync);
      const resolved: number[] = [];
      let seenByFirst: { calls: number; content: string } | undefined;
      const callsBefore = writeCalls();
      const writes = lines.map((line, index) =>
        file.write(line).then(() => {
          seenByFirst ??= { calls: writeCalls() - callsBefore, content: readFileSync(path, 'utf8') };
          resolved.push(index);
        }),
      );
      // Nothing is written while the turn still runs: the file is created by the batch.
      expect(existsSync(path)).toBe(false);

      await Promise.all(writes);
      expect(seenByFirst?.content).toBe(lines.join(''));
      expect(seenByFirst?.calls).toBeLessThan(lines.length / 10);
      expect(resolved).toEqual(lines.map((_, index) => index));

      await file.write('later\n');
      await file.close();
      expect(readFileSync(path, 'utf8')).toBe(`${lines.join('')}later\n`);
    },
  );

  it.each([false, true])(
    'rejects every write of the batch when the file cannot be opened, and writes once it can (fsync %s)',
    async (fsync) => {
      const dir = join(tempDir(), 'missing');
      const file = new AppendFile(join(dir, 'segment'), fsync);
      const failed = await Promise.allSettled([file.write('a\n'), file.write('b\n')]);
      expect(failed).toEqual([
        { status: 'rejected', reason: expect.objectContaining({ code: 'ENOENT' }) },
        { status: 'rejected', reason: expect.objectContaining({ code: 'ENOENT' }) },
      ]);

      mkdirSync(dir);
      await file.write('c\n');
      await file.close();
      expect(readFileSync(join(dir, 'segment'), 'utf8')).toBe('c\n');
    },
  );

  it('writes what is queued when closed, and refuses writes after', async () => {
    const path = join(tempDir(), 'segment');
    const file = new AppendFile(path, false);
    const queued = file.write('queued\n');
    await file.close();
    await expect(queued).resolves.toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('queued\n');
    await expect(file.write('late\n')).rejects.toThrow(`${path} is closed`);
  });
});
