import { describe, expect, it } from 'vitest';
import { createLogger } from '../log.js';
import { KeyUseRecorder, type KeyUse } from './key-use.js';

const log = createLogger('test', 'silent');
const hash = (n: number) => String(n).padStart(64, '0');

describe('KeyUseRecorder', () => {
  it('sends one batch with the latest use of each account', async () => {
    const batches: KeyUse[][] = [];
    const recorder = new KeyUseRecorder(async (uses) => void batches.push(uses), log, 60_000);
    recorder.note(1n, hash(1), new Date(1_000));
    recorder.note(1n, hash(1), new Date(2_000));
    recorder.note(2n, hash(2), new Date(1_500));
    await recorder.flush();
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((use) => [use.accountId, use.usedAt.getTime()])).toEqual([
      [1n, 2_000],
      [2n, 1_500],
    ]);
  });

  it('sends nothing when no key was used', async () => {
    let calls = 0;
    const recorder = new KeyUseRecorder(async () => void (calls += 1), log, 60_000);
    await recorder.flush();
    expect(calls).toBe(0);
  });

  it('keeps a failed batch for the next flush, without overwriting newer uses', async () => {
    const sent: KeyUse[][] = [];
    let fail = true;
    const recorder = new KeyUseRecorder(
      async (uses) => {
        if (fail) {
          throw new Error('accounts down');
        }
        sent.push(uses);
      },
      log,
      60_000,
    );
    recorder.note(1n, hash(1), new Date(1_000));
    recorder.note(2n, hash(2), new Date(1_000));
    await recorder.flush();
    recorder.note(2n, hash(2), new Date(5_000));
    fail = false;
    await recorder.flush();
    expect(sent).toHaveLength(1);
    expect(new Map(sent[0]?.map((use) => [use.accountId, use.usedAt.getTime()]))).toEqual(
      new Map([
        [1n, 1_000],
        [2n, 5_000],
      ]),
    );
  });

  it('flushes what is pending when it stops', async () => {
    const sent: KeyUse[][] = [];
    const recorder = new KeyUseRecorder(async (uses) => void sent.push(uses), log, 60_000);
    recorder.start();
    recorder.note(3n, hash(3));
    await recorder.stop();
    expect(sent.flat().map((use) => use.accountId)).toEqual([3n]);
  });
});
