import fc from 'fast-check';
import { describe, it } from 'vitest';
import { commandArb, runHistory } from '../../test/money-history-helpers.js';
import { moneyWorld } from '../../test/memory-store/money-world.js';

describe('money over random histories (in-memory stores)', () => {
  it('conserves every nano-USD and never extends the life of credit, whatever the sequence of moves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 40 }), async (commands) => {
        const world = await moneyWorld();
        await runHistory(
          {
            deps: world.deps,
            rootId: world.root.id,
            lots: async () => [...world.store.tables().lots.values()].filter((lot) => lot.remainingNano > 0n),
            advanceDays: (days) => world.clock.advanceDays(days),
          },
          commands,
        );
      }),
      { numRuns: 100 },
    );
    // A hundred histories take a few seconds alone, and several times that on a busy machine.
  }, 60_000);
});
