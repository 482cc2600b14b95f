import {
  createTestDatabase,
  createUser,
  expectError,
  startFaultProxy,
  startGateway,
  waitFor,
  type FaultProxy,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** PostgreSQL cut off behind a TCP fault proxy (the machine's server is never touched). */
describe('answers while PostgreSQL does not answer', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let proxy: FaultProxy;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await startFaultProxy(Number(new URL(database.url).port));
    const url = new URL(database.url);
    url.port = String(proxy.port);
    gw = await startGateway({ databaseUrl: url.toString() });
  }, 120_000);

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (proxy as FaultProxy | undefined)?.close();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('is 503 with Retry-After, never 500; /healthz names the store; all serves again once it is back', async () => {
    const unused = await createUser(gw, { credit: 2 });
    proxy.cut();

    const write = await gw.request('/x-users', {
      method: 'POST',
      json: { Name: 'whiledown1', Email: 'whiledown1@example.com', CreditGranted: 2 },
    });
    expect(write.headers.get('retry-after')).not.toBeNull();
    await expectError(write, 503, 'unavailable');
    // A valid key the edge has not cached yet: accounts must read it from the database.
    const uncached = await gw.request('/dashboard/status', { key: unused.key });
    expect(uncached.headers.get('retry-after')).not.toBeNull();
    await expectError(uncached, 503, 'unavailable');
    const health = await gw.request('/healthz');
    expect(health.status).toBe(503);
    expect(((await health.json()) as { error: { message: string } }).error.message).toContain(
      'accounts (postgres)',
    );

    proxy.restore();
    await waitFor(
      async () => (await gw.request('/healthz')).status === 200,
      '/healthz 200 again',
      20_000,
      100,
    );
    expect((await gw.request('/dashboard/status', { key: unused.key })).status).toBe(200);
    const [stored] = await database.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM accounts.accounts WHERE name = 'whiledown1'`,
    );
    expect(stored?.n).toBe('0');
  });
});
