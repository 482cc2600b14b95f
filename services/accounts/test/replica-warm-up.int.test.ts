import { createGrpcClient, hashApiKey, servingStatus, usd, type PromiseClient } from '@gw/kit';
import { accounts } from '@gw/proto';
import {
  createAccountByRpc,
  createTestDatabase,
  holdTableLock,
  startService,
  waitFor,
  type Created,
  type StartedService,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Generous, so a loaded machine only slows the burst down: what must not happen is a refusal of
 * the replica's own (503), such as a connection it could not open in time.
 */
const BURST_DEADLINE_MS = 30_000;

/**
 * Callers of the burst, each with its own funds: their creations do not queue on one parent's
 * row lock (a burst under one parent is bounded by that lock, warm or not).
 */
const PARENTS = 20;

describe('an accounts replica started beside a running one', () => {
  let database: TestDatabase;
  let service: StartedService<'accounts'>;
  let client: PromiseClient<accounts.AccountsServiceClient> | undefined;
  const parents: Created[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService('accounts', { databaseUrl: database.url });
    for (let index = 0; index < PARENTS; index++) {
      parents.push(await createAccountByRpc(service, { credit: 5 }));
    }
  });

  afterAll(async () => {
    client?.close();
    await (service as StartedService<'accounts'> | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('reports NOT_SERVING until it is warm, then serves a burst of calls without a 503', async () => {
    const token = service.env.GW_INTERNAL_TOKEN ?? '';
    // The warm-up reads the credit lots: while a lock on them is held, the warm-up cannot finish.
    const release = await holdTableLock(database.url, 'accounts.credit_lots');
    let address: string;
    try {
      address = await service.launchReplica();
      await waitFor(
        async () => (await servingStatus(address, token)) !== 'unreachable',
        'the replica answering health',
        60_000,
        100,
      );
      // Nothing else reads the lots now: a waiting reader is the replica's warm-up.
      await waitFor(
        async () => {
          const [waiting] = await database.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks
              WHERE relation = 'accounts.credit_lots'::regclass AND NOT granted`,
          );
          return (waiting?.n ?? 0) > 0;
        },
        'the warm-up waiting on the lots',
        10_000,
        50,
      );
      expect(await servingStatus(address, token)).toBe('not_serving');
    } finally {
      await release();
    }
    await waitFor(async () => (await servingStatus(address, token)) === 'serving', 'the replica serving');

    // What a fresh replica gets first: authentications of AI calls and account creations, all at once.
    client = createGrpcClient(accounts.AccountsServiceClient, address, token, BURST_DEADLINE_MS);
    const replica = client;
    const calls = parents.flatMap((parent, index) => [
      ...Array.from({ length: 5 }, () => replica.authenticateKey({ keyHash: hashApiKey(parent.key) })),
      replica.createAccount({
        callerId: BigInt(parent.id),
        fields: { name: `warm${index}`, email: `warm${index}@example.com` },
        creditGrantedNano: usd(2),
        idempotencyKey: '',
        ipAddress: '127.0.0.1',
        requestHash: '',
      }),
    ]);
    const failures = (await Promise.allSettled(calls)).flatMap((outcome) =>
      outcome.status === 'rejected' ? [String(outcome.reason)] : [],
    );
    expect(failures).toEqual([]);
  });
});
