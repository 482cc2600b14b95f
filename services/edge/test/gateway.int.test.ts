import { readFileSync } from 'node:fs';
import {
  AUTH_CACHE_UNTIL_EVENT,
  createTestDatabase,
  expectError,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { publishEvent, SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface ErrorBody {
  error: { message: string; type: string; code: string };
}

async function createChild(gw: Gateway, name: string, credit = 5) {
  const response = await gw.request('/x-users', {
    method: 'POST',
    json: { Name: name, Email: `${name}@example.com`, CreditGranted: credit },
  });
  return {
    response,
    body: (await response.json()) as {
      User: { ID: number; SecretKey: string; Updates: Record<string, unknown> };
    },
  };
}

describe.each([
  ['PostgreSQL', true],
  ['the embedded PostgreSQL', false],
])('the gateway on %s', (_label, onPostgres) => {
  let gw: Gateway;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    database = onPostgres ? await createTestDatabase() : undefined;
    gw = await startGateway(database ? { databaseUrl: database.url } : { embedded: true });
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (gw as Gateway | undefined)?.stop();
    await database?.drop();
  });

  it('reports every process serving on /healthz without a key', async () => {
    const response = await gw.request('/healthz', { key: null });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { services: Record<string, string> };
    expect(Object.keys(body.services).sort()).toEqual([
      'accounts',
      'billing',
      'config',
      'keypool',
      'mailer',
      'news',
      'proxy',
    ]);
    expect(Object.values(body.services).every((state) => state === 'serving')).toBe(true);
  });

  it('creates a subaccount as root and authenticates with the returned key', async () => {
    const { response, body } = await createChild(gw, 'alice01');
    expect(response.status).toBe(200);
    expect(body.User.SecretKey).toMatch(/^sk-gw-/);
    expect(body.User.Updates.Balance).toBe(5);
    expect(body.User.Updates.DNA).toBe(`.1.${body.User.ID}.`);

    const status = await gw.request('/dashboard/status', { key: body.User.SecretKey });
    expect(status.status).toBe(200);
    const me = (await status.json()) as Record<string, unknown>;
    expect(me).toMatchObject({
      object: 'user_status',
      id: body.User.ID,
      name: 'alice01',
      balance: 5,
      admin: false,
      manage: true,
    });
    expect(JSON.stringify(me)).not.toContain(body.User.SecretKey);

    const old = await gw.request('/dashboard/x-user-status', { key: body.User.SecretKey });
    expect(old.status).toBe(200);
    expect(((await old.json()) as { id: number }).id).toBe(body.User.ID);
  });
});

describe('edge authentication and bad input', () => {
  let gw: Gateway;
  let database: TestDatabase;

  const accountCount = async () =>
    Number((await database.query<{ n: string }>('SELECT count(*) AS n FROM accounts.accounts'))[0]?.n);
  const ledgerCount = async () =>
    Number((await database.query<{ n: string }>('SELECT count(*) AS n FROM accounts.ledger'))[0]?.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: AUTH_CACHE_UNTIL_EVENT });
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('refuses a rotated-out key on another edge replica once gw.account.changed is published', async () => {
    const replica = await gw.startEdgeReplica();
    const { body } = await createChild(gw, 'rotator1');
    const oldKey = body.User.SecretKey;
    // Warm the replica's cache with the old key.
    expect((await gw.request('/dashboard/status', { key: oldKey, base: replica })).status).toBe(200);

    const today = new Date().toISOString().slice(0, 10);
    const rotated = await gw.request('/x-self', {
      method: 'POST',
      key: oldKey,
      json: { confirm: `${today}-ROTATE-SELF` },
    });
    expect(rotated.status).toBe(200);
    const newKey = ((await rotated.json()) as { rotate: { key: string } }).rotate.key;
    expect(newKey).not.toBe(oldKey);

    await waitFor(
      async () => (await gw.request('/dashboard/status', { key: oldKey, base: replica })).status === 401,
      'old key refused on the replica',
    );
    expect((await gw.request('/dashboard/status', { key: newKey, base: replica })).status).toBe(200);
  });

  it('keeps answering from its cache until gw.account.changed arrives, then asks accounts again', async () => {
    const { body } = await createChild(gw, 'cached01');
    const key = body.User.SecretKey;
    expect((await gw.request('/dashboard/status', { key })).status).toBe(200);
    // Change the key behind the edge's back: no event, so the cached entry still answers.
    await database.query(
      'UPDATE accounts.accounts SET key_hash = md5(key_hash) || md5(key_hash) WHERE id = $1',
      [body.User.ID],
    );
    expect((await gw.request('/dashboard/status', { key })).status).not.toBe(401);

    const nc = await connect({ servers: gw.natsUrl });
    publishEvent(nc, SUBJECTS.accountChanged(body.User.ID), events.AccountChanged, {
      accountId: BigInt(body.User.ID),
      reason: 'test',
      keyHash: '',
      at: '',
    });
    await nc.drain();
    await waitFor(
      async () => (await gw.request('/dashboard/status', { key })).status === 401,
      'cached key dropped',
    );
  });

  it('answers 401 in the error shape for a missing, garbled or unknown key', async () => {
    await expectError(await gw.request('/dashboard/status', { key: null }), 401, 'unauthenticated');
    await expectError(
      await gw.request('/dashboard/status', { key: null, headers: { authorization: 'Basic abc' } }),
      401,
      'unauthenticated',
    );
    await expectError(
      await gw.request('/dashboard/status', { key: null, headers: { authorization: 'Bearer' } }),
      401,
      'unauthenticated',
    );
    await expectError(
      await gw.request('/dashboard/status', { key: 'sk-gw-not-a-real-key-at-all' }),
      401,
      'unauthenticated',
    );
  });

  it('serves the committed OpenAPI document at /openapi.json without a key', async () => {
    const response = await gw.request('/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const committed = JSON.parse(
      readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(await response.json()).toEqual(committed);
  });

  it('answers 404 in the error shape for an unknown route', async () => {
    await expectError(await gw.request('/no-such-thing', { undocumented: true }), 404, 'not_found');
  });

  it('changes nothing on malformed JSON, an oversize body or an invalid field', async () => {
    const before = [await accountCount(), await ledgerCount()];
    await expectError(
      await gw.request('/x-users', {
        method: 'POST',
        body: '{"Name": "bob',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await gw.request('/x-users', {
        method: 'POST',
        json: {
          Name: 'bigbody1',
          Email: 'big@example.com',
          CreditGranted: 2,
          Alias: 'x'.repeat(2 * 1024 * 1024),
        },
      }),
      413,
      'payload_too_large',
    );
    for (const bad of [
      { Name: 'abc', Email: 'short@example.com', CreditGranted: 5 },
      { Name: '12345', Email: 'digits@example.com', CreditGranted: 5 },
      { Name: 'validname', Email: 'not-an-email', CreditGranted: 5 },
      { Name: 'validname', Email: 'v@example.com', CreditGranted: 1.99 },
      { Name: 'validname', Email: 'v@example.com', CreditGranted: '5' },
      { Name: 'validname', Email: 'v@example.com', CreditGranted: 2.0000000001 },
      { Name: 'valid\u0000name', Email: 'v@example.com', CreditGranted: 5 },
      { Name: 'validname', Email: 'v@example.com', CreditGranted: 5, Balance: 1000 },
      { Name: "x'; DROP TABLE accounts; --", Email: 'v@example.com', CreditGranted: 5, Days: 0 },
    ]) {
      await expectError(await gw.request('/x-users', { method: 'POST', json: bad }), 400, 'invalid_request');
    }
    expect([await accountCount(), await ledgerCount()]).toEqual(before);
  });

  it('answers 503 with Retry-After, never 401, for a valid uncached key while accounts is down', async () => {
    const { body } = await createChild(gw, 'outage01');
    await gw.processes.get('accounts')?.stop();
    const response = await gw.request('/dashboard/status', { key: body.User.SecretKey });
    expect(response.headers.get('retry-after')).toBe('1');
    await expectError(response, 503, 'unavailable');
  });

  it('reports a stopped service by name on /healthz', async () => {
    await gw.processes.get('news')?.stop();
    const response = await gw.request('/healthz', { key: null });
    expect(response.status).toBe(503);
    const body = (await response.json()) as ErrorBody & { services: Record<string, string> };
    expect(body.error.message).toContain('news');
    expect(body.services.news).toBe('not_serving');
    expect(body.services.keypool).toBe('serving');
    // The probe endpoint asks no other process: the edge stays live and in rotation.
    const live = await gw.request('/livez', { key: null });
    expect(live.status).toBe(200);
  });
});
