import type { DatabaseHandle } from '@gw/kit';
import { createTestDatabase, type TestDatabase } from '@gw/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { bootstrapRoot } from '../src/domain/bootstrap-root.js';
import { DAY_MS } from '../src/domain/lots.js';
import type { AccountsDeps } from '../src/domain/ports/deps.js';
import { DrizzleAccountsStore } from '../src/store/accounts-store.js';
import { openAccountsDatabase } from './accounts-helpers.js';
import { commandArb, runHistory, type LotState } from './money-history-helpers.js';

describe('money over random histories (PostgreSQL)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let deps: AccountsDeps;
  let rootId: bigint;
  let now = Date.parse('2026-03-10T12:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openAccountsDatabase(database);
    deps = {
      store: new DrizzleAccountsStore(handle.db),
      events: { accountChanged: () => undefined, audit: () => undefined },
      clock: { now: () => new Date(now) },
      alerts: { softLimitReached: () => Promise.resolve(), billingNotice: () => Promise.resolve() },
      policy: { apiBalanceFloorNano: 0n, tenancy: 'single' },
    };
    rootId = (await bootstrapRoot(deps, undefined)).root.id;
  });

  afterAll(async () => {
    await (handle as DatabaseHandle | undefined)?.close();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('conserves every nano-USD and never extends the life of credit (a smaller run than the unit one)', async () => {
    const lots = async (): Promise<LotState[]> =>
      (
        await database.query<{ remaining: string; expires_at: Date }>(
          'SELECT remaining_nano::text AS remaining, expires_at FROM accounts.credit_lots WHERE remaining_nano > 0',
        )
      ).map((row) => ({ remainingNano: BigInt(row.remaining), expiresAt: new Date(row.expires_at) }));
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 30 }), async (commands) => {
        await runHistory({ deps, rootId, lots, advanceDays: (days) => (now += days * DAY_MS) }, commands);
      }),
      { numRuns: 12 },
    );
  });
});
