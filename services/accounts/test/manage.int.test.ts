import {
  AUTH_CACHE_UNTIL_EVENT,
  createTestDatabase,
  createUser,
  expectError,
  startGateway,
  uniqueName,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceNano, conservation, moneyState } from './helpers.js';

const NANO = 1_000_000_000n;

interface UpdateBody {
  Action: string;
  User: Record<string, unknown> & { ID: number; Balance: number; AllowModels: string; Status: boolean };
}

describe('PUT|POST and DELETE /x-users/{identifier}', () => {
  let gw: Gateway;
  let database: TestDatabase;

  const put = (identifier: string | number, json: unknown, key?: string, headers?: Record<string, string>) =>
    gw.request(`/x-users/${encodeURIComponent(String(identifier))}`, {
      method: 'PUT',
      json,
      key: key ?? gw.rootKey,
      headers,
    });
  const del = (identifier: string | number, key?: string, headers?: Record<string, string>) =>
    gw.request(`/x-users/${encodeURIComponent(String(identifier))}`, {
      method: 'DELETE',
      key: key ?? gw.rootKey,
      headers,
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: AUTH_CACHE_UNTIL_EVENT });
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('updates basic fields, limits and rates by id, name, e-mail and with POST', async () => {
    const child = await createUser(gw, { credit: 5 });
    const response = await put(child.id, {
      Alias: 'Shown Name',
      HardLimit: 3.5,
      RPM: 60,
      ModelLimits: { 'gpt-*': { rpm: 5 } },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as UpdateBody;
    expect(body.Action).toBe('update');
    expect(body.User).toMatchObject({
      ID: child.id,
      Alias: 'Shown Name',
      HardLimit: 3.5,
      RPM: 60,
      ModelLimits: { 'gpt-*': { rpm: 5 } },
    });
    expect((await put(child.name, { QRCode: 'qr-1' })).status).toBe(200);
    expect((await put(`${child.name}@example.com`, { BillingEmail: 'bills@example.com' })).status).toBe(200);
    const viaPost = await gw.request(`/x-users/${child.id}`, { method: 'POST', json: { Rates: 1.5 } });
    expect(viaPost.status).toBe(200);
    expect(((await viaPost.json()) as UpdateBody).User).toMatchObject({
      QRCode: 'qr-1',
      BillingEmail: 'bills@example.com',
      Rates: 1.5,
    });
    // Rename: the new name answers, the old one is free.
    const renamed = uniqueName('renamed');
    expect((await put(child.id, { Name: renamed })).status).toBe(200);
    expect((await gw.request(`/x-users/${renamed}`)).status).toBe(200);
    await expectError(await gw.request(`/x-users/${child.name}`), 404, 'not_found');
  });

  it('refuses a second account with the same name or e-mail', async () => {
    await createUser(gw, { name: 'uniquely1' });
    const before = await moneyState(database);
    await expectError(
      await gw.request('/x-users', {
        method: 'POST',
        json: { Name: 'UNIQUELY1', Email: 'other@example.com', CreditGranted: 2 },
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await gw.request('/x-users', {
        method: 'POST',
        json: { Name: 'uniquely2', Email: 'Uniquely1@Example.com', CreditGranted: 2 },
      }),
      400,
      'invalid_request',
    );
    expect(await moneyState(database)).toBe(before);
  });

  it('applies AllowModels operations: add, -remove, * reset', async () => {
    const child = await createUser(gw);
    const models = async (ops: string) =>
      ((await (await put(child.id, { AllowModels: ops })).json()) as UpdateBody).User.AllowModels;
    expect(await models('gpt-4o claude-*')).toBe('gpt-4o claude-*');
    expect(await models('o3')).toBe('gpt-4o claude-* o3');
    expect(await models('-gpt-4o')).toBe('claude-* o3');
    expect(await models('*')).toBe('');
    expect(await models('* gemini-*')).toBe('gemini-*');
  });

  it('refuses owner-only fields to non-owners, own Status/Suspended, low Rates and bad input', async () => {
    const parent = await createUser(gw, { credit: 10, extra: { Rates: 2 } });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const before = await moneyState(database);
    for (const field of [{ Level: 1 }, { Role: 1 }, { Factor: 2 }, { LevelMapper: 'x' }]) {
      await expectError(await put(child.id, field, parent.key), 403, 'forbidden');
    }
    await expectError(await put(child.id, { Status: false }, child.key), 403, 'forbidden');
    await expectError(await put(child.id, { Suspended: true }, child.key), 403, 'forbidden');
    await expectError(await put(child.id, { HardLimit: 100 }, child.key), 403, 'forbidden');
    await expectError(await put(child.id, { Rates: 1.5 }, parent.key), 400, 'invalid_request');
    for (const bad of [
      { CreditGranted: 'lots' },
      { CreditGranted: 1.0000000001 },
      { HardLimit: -1 },
      { RPM: 1.5 },
      { Status: 'no' },
      { Name: 'x'.repeat(64) },
      { Name: 'ab' },
      { Name: "x'; DROP TABLE accounts.accounts; --", Days: 0 },
      { Email: 'not-an-email' },
      { Balance: 100 },
      { DNA: '.1.' },
      { Days: 0 },
      { Level: 10 },
    ]) {
      await expectError(await put(child.id, bad, parent.key), 400, 'invalid_request');
    }
    await expectError(await put(child.id, { Name: parent.name }, parent.key), 400, 'invalid_request');
    await expectError(
      await gw.request(`/x-users/${child.id}`, {
        method: 'PUT',
        key: parent.key,
        body: '{"Alias": ',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expect(await moneyState(database)).toBe(before);
    // The account may change its own basic fields.
    expect((await put(child.id, { Alias: 'me myself' }, child.key)).status).toBe(200);
    // The owner (root) may set owner-only fields; the parent may disable the child, whose changes
    // then get 403 while its reads still answer.
    expect((await put(child.id, { Level: 4, Factor: 1.25 })).status).toBe(200);
    expect((await put(child.id, { Status: false }, parent.key)).status).toBe(200);
    await waitFor(
      async () => (await put(child.id, { Alias: 'disabled me' }, child.key)).status === 403,
      'disabled child refused',
    );
    expect((await gw.request('/dashboard/status', { key: child.key })).status).toBe(200);
    expect((await put(child.id, { Status: true }, parent.key)).status).toBe(200);
    // A SQL-looking name that passes the name rules is stored literally.
    const sqlName = "x'; DROP TABLE accounts.accounts; --";
    const stored = await put(child.id, { Name: sqlName }, parent.key);
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as UpdateBody).User.Name).toBe(sqlName);
    expect((await database.query('SELECT count(*) AS n FROM accounts.accounts')).length).toBe(1);
  });

  it('answers 400 naming the field and its range for out-of-range amounts and limits, 415 without JSON, never 500', async () => {
    const parent = await createUser(gw, { credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const before = await moneyState(database);
    const create = (json: unknown) => gw.request('/x-users', { method: 'POST', json });
    const fresh = () => {
      const name = uniqueName('bounded');
      return { Name: name, Email: `${name}@example.com` };
    };
    await expectError(
      await create({ ...fresh(), CreditGranted: 9.3e9 }),
      400,
      'invalid_request',
      'CreditGranted: must be from 2 to 1000000000 USD',
    );
    await expectError(
      await create({ ...fresh(), CreditGranted: 1e30 }),
      400,
      'invalid_request',
      'CreditGranted',
    );
    await expectError(
      await create({ ...fresh(), CreditGranted: -5 }),
      400,
      'invalid_request',
      'must not be negative',
    );
    await expectError(
      await create({ ...fresh(), CreditGranted: 5, HardLimit: 1e30 }),
      400,
      'invalid_request',
      'HardLimit: must be from 0 to 1000000000 USD',
    );
    await expectError(
      await put(child.id, { CreditGranted: 1e30 }),
      400,
      'invalid_request',
      'CreditGranted: must be from -1000000000 to 1000000000 USD',
    );
    await expectError(
      await put(child.id, { Level: 1e30 }),
      400,
      'invalid_request',
      'Level: must be an integer from 0 to 9',
    );
    await expectError(
      await put(child.id, { RPM: 1e30 }),
      400,
      'invalid_request',
      'RPM: must be an integer from 0 to',
    );
    await expectError(
      await put(child.id, { SoftLimit: -1 }, parent.key),
      400,
      'invalid_request',
      'SoftLimit: must not be negative',
    );
    await expectError(
      await put(child.id, { ModelLimits: { m: { rpm: 1e30 } } }),
      400,
      'invalid_request',
      'ModelLimits.m.rpm',
    );
    await expectError(
      await put(child.id, { ModelLimits: { m: { rps: 1 } } }),
      400,
      'invalid_request',
      'ModelLimits.m',
    );
    // A body that is not declared JSON is 415, not "Name: received undefined".
    const plain = await gw.request('/x-users', {
      method: 'POST',
      body: JSON.stringify({ ...fresh(), CreditGranted: 2 }),
      headers: { 'content-type': 'text/plain' },
    });
    await expectError(plain, 415, 'unsupported_media_type', 'Content-Type: application/json');
    // 10 000 levels deep, with and without an Idempotency-Key: 400 before anything walks it.
    const deep = `{"Alias":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Array<Record<string, string>>) {
      const response = await gw.request(`/x-users/${child.id}`, {
        method: 'PUT',
        body: deep,
        headers: { 'content-type': 'application/json', ...headers },
      });
      await expectError(response, 400, 'invalid_request', 'deeper than 32 levels');
    }
    // A huge unknown key comes back as a short excerpt.
    const unknown = await put(child.id, { [`X${'k'.repeat(100_000)}`]: 1 });
    const body = await expectError(unknown, 400, 'invalid_request');
    expect(body.error.message.length).toBeLessThan(300);
    expect(await moneyState(database)).toBe(before);
  });

  it('recharges with positive CreditGranted and claws back with a negative one, never below zero', async () => {
    const parent = await createUser(gw, { credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const recharge = await put(child.id, { CreditGranted: 3, Days: 30 }, parent.key);
    expect(recharge.status).toBe(200);
    expect(((await recharge.json()) as UpdateBody).User.Balance).toBe(5);
    expect(await balanceNano(database, parent.id)).toBe(5n * NANO);
    const clawed = await put(child.id, { CreditGranted: -1.5 }, parent.key);
    expect(clawed.status).toBe(200);
    expect(((await clawed.json()) as UpdateBody).User.Balance).toBe(3.5);
    expect(await balanceNano(database, parent.id)).toBe(6_500_000_000n);
    const before = await moneyState(database);
    await expectError(await put(child.id, { CreditGranted: -3.6 }, parent.key), 400, 'insufficient_credit');
    await expectError(await put(child.id, { CreditGranted: 100 }, parent.key), 400, 'insufficient_credit');
    expect(await moneyState(database)).toBe(before);
    // Root claws back: the credit is un-minted.
    const rootChild = await createUser(gw, { credit: 4 });
    expect((await put(rootChild.id, { CreditGranted: -1 })).status).toBe(200);
    expect(await balanceNano(database, rootChild.id)).toBe(3n * NANO);
    const check = await conservation(database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);
  });

  it('replays an Idempotency-Key with the same body and refuses another body with 409', async () => {
    const parent = await createUser(gw, { credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const headers = { 'idempotency-key': `recharge-${child.id}` };
    const first = await put(child.id, { CreditGranted: 1 }, parent.key, headers);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const second = await put(child.id, { CreditGranted: 1 }, parent.key, headers);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(firstBody);
    expect(await balanceNano(database, child.id)).toBe(3n * NANO);
    const before = await moneyState(database);
    await expectError(await put(child.id, { CreditGranted: 2 }, parent.key, headers), 409, 'conflict');
    expect(await moneyState(database)).toBe(before);

    // Create: a replay answers the same account (the secret key is shown once only).
    const name = uniqueName('idem');
    const createHeaders = { 'idempotency-key': `create-${name}`, 'content-type': 'application/json' };
    const createBody = JSON.stringify({ Name: name, Email: `${name}@example.com`, CreditGranted: 2 });
    const made = await gw.request('/x-users', {
      method: 'POST',
      key: parent.key,
      body: createBody,
      headers: createHeaders,
    });
    const again = await gw.request('/x-users', {
      method: 'POST',
      key: parent.key,
      body: createBody,
      headers: createHeaders,
    });
    expect([made.status, again.status]).toEqual([200, 200]);
    const madeBody = (await made.json()) as { User: { ID: number; SecretKey: string } };
    const againBody = (await again.json()) as { User: { ID: number; SecretKey: string } };
    expect(againBody.User.ID).toBe(madeBody.User.ID);
    expect(madeBody.User.SecretKey).toMatch(/^sk-gw-/);
    expect(againBody.User.SecretKey).toBe('');
    const beforeConflict = await moneyState(database);
    await expectError(
      await gw.request('/x-users', {
        method: 'POST',
        key: parent.key,
        json: { Name: name, Email: `${name}@example.com`, CreditGranted: 3 },
        headers: { 'idempotency-key': `create-${name}` },
      }),
      409,
      'conflict',
    );
    expect(await moneyState(database)).toBe(beforeConflict);

    // Ten concurrent deliveries of one keyed create: one account, one grant, nine replays.
    const racing = uniqueName('race');
    const raceHeaders = { 'idempotency-key': `create-${racing}`, 'content-type': 'application/json' };
    const raceBody = JSON.stringify({ Name: racing, Email: `${racing}@example.com`, CreditGranted: 2 });
    const raced = await Promise.all(
      Array.from({ length: 10 }, () =>
        gw.request('/x-users', { method: 'POST', key: parent.key, body: raceBody, headers: raceHeaders }),
      ),
    );
    expect(raced.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(raced.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      9,
    );
    const raceIds = await Promise.all(
      raced.map(async (response) => ((await response.json()) as { User: { ID: number } }).User.ID),
    );
    expect(new Set(raceIds).size).toBe(1);
    expect(await database.query('SELECT id FROM accounts.accounts WHERE name = $1', [racing])).toHaveLength(
      1,
    );

    // Delete: the replay answers the first refund, and nothing more moves.
    const deleteHeaders = { 'idempotency-key': `delete-${madeBody.User.ID}` };
    const gone = await del(madeBody.User.ID, parent.key, deleteHeaders);
    expect(gone.status).toBe(200);
    const goneBody = await gone.text();
    const beforeReplay = await moneyState(database);
    const replay = await del(madeBody.User.ID, parent.key, deleteHeaders);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe(goneBody);
    expect(await moneyState(database)).toBe(beforeReplay);
    expect((await conservation(database)).difference).toBe(0n);
  });

  it('deletes with a refund to the parent minus min(0.2, remainder), and kills the key at once', async () => {
    const parent = await createUser(gw, { credit: 20 });
    const cases: Array<[number, number, number]> = [
      // [remainder to leave, expected refund, expected fee]
      [0.15, 0, 0.15],
      [0.2, 0, 0.2],
      [0, 0, 0],
      [5, 4.8, 0.2],
    ];
    for (const [remainder, refund, fee] of cases) {
      const child = await createUser(gw, { parentKey: parent.key, credit: 5 });
      if (remainder < 5) {
        expect((await put(child.id, { CreditGranted: -(5 - remainder) }, parent.key)).status).toBe(200);
      }
      const parentBefore = await balanceNano(database, parent.id);
      const response = await del(child.id, parent.key);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        Action: string;
        User: Record<string, unknown>;
        message: string;
      };
      expect(body).toMatchObject({
        Action: 'delete',
        User: { ID: child.id, Name: child.name, RefundedBalance: refund, TransactionFee: fee },
      });
      expect(typeof body.message).toBe('string');
      expect(await balanceNano(database, parent.id)).toBe(parentBefore + BigInt(Math.round(refund * 1e9)));
      await expectError(await gw.request('/dashboard/status', { key: child.key }), 401, 'unauthenticated');
      await expectError(await gw.request(`/x-users/${child.id}`, { key: parent.key }), 404, 'not_found');
      if (refund > 0) {
        const [lot] = await database.query<{ expires_at: Date; created_at: Date }>(
          `SELECT l.expires_at, l.created_at FROM accounts.credit_lots l JOIN accounts.ledger g ON g.id = l.ledger_id
           WHERE g.kind = 'refund' AND g.account_id = $1 AND g.counterparty_id = $2`,
          [parent.id, child.id],
        );
        expect(lot).toBeDefined();
        const days = (lot!.expires_at.getTime() - lot!.created_at.getTime()) / 86_400_000;
        expect(Math.abs(days - 180)).toBeLessThan(1 / 86_400);
      }
      const rows = await database.query<{ kind: string; amount_nano: string }>(
        'SELECT kind, amount_nano::text FROM accounts.ledger WHERE idempotency_key = $1 AND account_id = $2 ORDER BY kind',
        [`delete:${child.id}`, child.id],
      );
      if (remainder > 0) {
        expect(rows.find((row) => row.kind === 'fee')?.amount_nano).toBe(
          String(-BigInt(Math.round(fee * 1e9))),
        );
      }
    }
    // The name and e-mail are free again.
    const check = await conservation(database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);
  });

  it('refuses a deleted account key on another edge replica that had it cached', async () => {
    const replica = await gw.startEdgeReplica();
    const child = await createUser(gw, { credit: 2 });
    expect((await gw.request('/dashboard/status', { key: child.key, base: replica })).status).toBe(200);
    expect((await del(child.id)).status).toBe(200);
    await waitFor(
      async () => (await gw.request('/dashboard/status', { key: child.key, base: replica })).status === 401,
      'deleted key refused on the replica',
    );
  });

  it('lets only the parent or an owner delete, refuses an account with subaccounts, and lets one of two concurrent deletes win', async () => {
    const grand = await createUser(gw, { credit: 20 });
    const parent = await createUser(gw, { parentKey: grand.key, credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 3 });
    const sibling = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const grandchild = await createUser(gw, { parentKey: child.key, credit: 2 });
    const before = await moneyState(database);
    // Grandparent (not an owner), sibling, the child itself and its own child: 403, nothing changes.
    for (const key of [grand.key, sibling.key, child.key, grandchild.key]) {
      await expectError(await del(child.id, key), 403, 'forbidden');
    }
    // With a subaccount: 400 naming it.
    const refused = await expectError(await del(child.id, parent.key), 400, 'invalid_request');
    expect(refused.error.message).toContain(grandchild.name);
    await expectError(await del(999_999, parent.key), 404, 'not_found');
    await expectError(await del('L1', parent.key), 400, 'invalid_request');
    expect(await moneyState(database)).toBe(before);
    // Root is an owner above the grandchild: allowed.
    expect((await del(grandchild.id)).status).toBe(200);
    const [first, second] = await Promise.all([del(child.id, parent.key), del(child.id, parent.key)]);
    expect([first.status, second.status].sort()).toEqual([200, 404]);
    const refunds = await database.query(
      "SELECT id FROM accounts.ledger WHERE idempotency_key = $1 AND kind = 'fee'",
      [`delete:${child.id}`],
    );
    expect(refunds).toHaveLength(1);
    expect((await conservation(database)).difference).toBe(0n);
  });

  it('answers the access matrix for read, update and delete of A1 (self, parent, ancestor, sibling, child, cousin, root)', async () => {
    // root → O(owner-less top) → A → A1 → A11, A → A2; root → B → B1
    const top = await createUser(gw, { credit: 30 });
    const a = await createUser(gw, { parentKey: top.key, credit: 15 });
    const a1 = await createUser(gw, { parentKey: a.key, credit: 5 });
    const a11 = await createUser(gw, { parentKey: a1.key, credit: 2 });
    const a2 = await createUser(gw, { parentKey: a.key, credit: 2 });
    const b = await createUser(gw, { credit: 5 });
    const b1 = await createUser(gw, { parentKey: b.key, credit: 2 });
    const actors: Record<string, string> = {
      self: a1.key,
      parent: a.key,
      ancestor: top.key,
      sibling: a2.key,
      child: a11.key,
      cousin: b1.key,
      other: b.key,
      root: gw.rootKey,
    };
    const expected: Record<string, { read: number; update: number; delete: number }> = {
      self: { read: 403, update: 403, delete: 403 },
      parent: { read: 200, update: 200, delete: 400 },
      ancestor: { read: 200, update: 200, delete: 403 },
      sibling: { read: 403, update: 403, delete: 403 },
      child: { read: 403, update: 403, delete: 403 },
      cousin: { read: 403, update: 403, delete: 403 },
      other: { read: 403, update: 403, delete: 403 },
      root: { read: 200, update: 200, delete: 400 },
    };
    const before = await conservation(database);
    for (const identifier of [String(a1.id), a1.name, `${a1.name}@example.com`, a1.dna]) {
      for (const [actor, key] of Object.entries(actors)) {
        const read = await gw.request(`/x-dna/${encodeURIComponent(identifier)}`, { key });
        // Self-update of a non-basic field is refused like any other out-of-scope write.
        const update = await put(identifier, { HardLimit: 7 }, key);
        const remove = await del(identifier, key);
        const got = { read: read.status, update: update.status, delete: remove.status };
        // A DNA path on /x-dna names a subtree, which A1 may list under its own path.
        const readSelf = actor === 'self' && identifier === a1.dna ? { read: 200 } : {};
        expect(got, `${actor} on ${identifier}`).toEqual({ ...expected[actor], ...readSelf });
        for (const response of [read, update, remove]) {
          if (response.status === 403) {
            expect(await response.text()).not.toContain(a1.name);
          }
        }
      }
    }
    expect((await conservation(database)).difference).toBe(before.difference);
  });
});
