import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, createGrpcClient, ErrorCode, type PromiseClient } from '@gw/kit';
import { accounts } from '@gw/proto';
import {
  createTestDatabase,
  createUser,
  expectError,
  freePort,
  startGateway,
  startProcess,
  waitFor,
  type Gateway,
  type RunningProcess,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceNano, conservation } from './helpers.js';

const NANO = 1_000_000_000n;
const cents = (n: number) => BigInt(n) * 10_000_000n;

describe('money: funded creations, Debit, limits and conservation (PostgreSQL)', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let redis: RunningProcess;
  let redisPort: number;
  let redisDir: string;
  let client: PromiseClient<accounts.AccountsServiceClient>;

  const redisCli = (...args: string[]) =>
    execFileSync('redis-cli', ['-p', String(redisPort), ...args], { encoding: 'utf8' }).trim();

  beforeAll(async () => {
    redisPort = await freePort();
    redisDir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
    redis = startProcess(
      'redis',
      'redis-server',
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        redisDir,
      ],
      {
        cwd: redisDir,
        env: {},
      },
    );
    await waitFor(async () => redis.output().includes('Ready to accept connections'), 'redis-server', 10_000);
    database = await createTestDatabase();
    gw = await startGateway({
      databaseUrl: database.url,
      env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` },
    });
    client = createGrpcClient(
      accounts.AccountsServiceClient,
      gw.env.ACCOUNTS_ADDR ?? '',
      gw.env.GW_INTERNAL_TOKEN ?? '',
      10_000,
    );
  });

  afterAll(async () => {
    (client as typeof client | undefined)?.close();
    // beforeAll may have failed before assigning them.
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
    await (redis as RunningProcess | undefined)?.stop();
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('never overdraws a parent under 100 concurrent funded creations, and conservation holds', async () => {
    // Enough for 50 grants of 2 USD and a half: exactly half of the 100 must be refused.
    const parent = await createUser(gw, { credit: 100.5 });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        gw.request('/x-users', {
          method: 'POST',
          key: parent.key,
          json: {
            Name: `burst${parent.id}n${index}`,
            Email: `burst${parent.id}n${index}@example.com`,
            CreditGranted: 2,
          },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 400)).toHaveLength(50);
    expect(await balanceNano(database, parent.id)).toBe(500_000_000n);
    const [negative] = await database.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM accounts.credit_lots WHERE remaining_nano < 0',
    );
    expect(negative?.n).toBe('0');
    const [children] = await database.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM accounts.accounts WHERE parent_id = $1',
      [parent.id],
    );
    expect(children?.n).toBe('50');
    const check = await conservation(database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);
  });

  it('charges a Debit delivered 50 times concurrently once, and refuses the same key with another amount', async () => {
    const child = await createUser(gw, { credit: 5 });
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        client.debit({
          accountId: BigInt(child.id),
          amountNano: cents(1),
          idempotencyKey: `evt-dup-${child.id}`,
        }),
      ),
    );
    expect(new Set(replies.map((reply) => reply.ledgerId)).size).toBe(1);
    expect(replies.filter((reply) => !reply.replayed)).toHaveLength(1);
    const rows = await database.query(
      "SELECT id FROM accounts.ledger WHERE idempotency_key = $1 AND kind = 'usage'",
      [`evt-dup-${child.id}`],
    );
    expect(rows).toHaveLength(1);
    expect(await balanceNano(database, child.id)).toBe(5n * NANO - cents(1));

    const conflict = await client
      .debit({ accountId: BigInt(child.id), amountNano: cents(2), idempotencyKey: `evt-dup-${child.id}` })
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(AppError);
    expect((conflict as AppError).code).toBe(ErrorCode.Conflict);
    expect(
      await database.query('SELECT id FROM accounts.ledger WHERE idempotency_key = $1', [
        `evt-dup-${child.id}`,
      ]),
    ).toHaveLength(1);
    expect(await balanceNano(database, child.id)).toBe(5n * NANO - cents(1));

    for (const bad of [
      { accountId: BigInt(child.id), amountNano: -1n, idempotencyKey: 'neg' },
      { accountId: BigInt(child.id), amountNano: 1n, idempotencyKey: '' },
    ]) {
      const refused = await client.debit(bad).catch((error: unknown) => error);
      expect((refused as AppError).code).toBe(ErrorCode.InvalidRequest);
    }
    const missing = await client
      .debit({ accountId: 987_654n, amountNano: 1n, idempotencyKey: 'nobody' })
      .catch((error: unknown) => error);
    expect((missing as AppError).code).toBe(ErrorCode.NotFound);
    expect((await conservation(database)).difference).toBe(0n);
  });

  it('takes a balance below zero post-paid, settles the debt from the next credit, and spends the earliest lot first', async () => {
    const child = await createUser(gw, { credit: 2 });
    expect(
      (await gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { CreditGranted: 1, Days: 10 } }))
        .status,
    ).toBe(200);
    // Lots: 2 (180 days) and 1 (10 days). 1.5 comes from the 10-day lot first (1), then 0.5.
    await client.debit({
      accountId: BigInt(child.id),
      amountNano: 1_500_000_000n,
      idempotencyKey: `evt-a-${child.id}`,
    });
    const lots = await database.query<{ remaining_nano: string }>(
      'SELECT remaining_nano::text FROM accounts.credit_lots WHERE account_id = $1 ORDER BY expires_at',
      [child.id],
    );
    expect(lots.map((lot) => lot.remaining_nano)).toEqual(['0', '1500000000']);
    const reply = await client.debit({
      accountId: BigInt(child.id),
      amountNano: 2n * NANO,
      idempotencyKey: `evt-b-${child.id}`,
    });
    expect(reply.balanceNano).toBe(-500_000_000n);
    expect(await balanceNano(database, child.id)).toBe(-500_000_000n);
    const info = (await (await gw.request('/dashboard/info', { key: child.key })).json()) as {
      balance: { total: number };
      usage: { today: { cost: number }; month: { cost: number } };
    };
    expect(info.balance.total).toBe(-0.5);
    expect(info.usage.today.cost).toBe(3.5);
    expect(info.usage.month.cost).toBe(3.5);
    expect(
      (await gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { CreditGranted: 2 } })).status,
    ).toBe(200);
    expect(await balanceNano(database, child.id)).toBe(1_500_000_000n);
    const [row] = await database.query<{ debt_nano: string }>(
      'SELECT debt_nano::text FROM accounts.accounts WHERE id = $1',
      [child.id],
    );
    expect(row?.debt_nano).toBe('0');
    expect((await conservation(database)).difference).toBe(0n);
  });

  it('marks the account at HardLimit and enqueues one SoftLimit mail per month', async () => {
    const child = await createUser(gw, { credit: 5, extra: { HardLimit: 1, SoftLimit: 0.5 } });
    const month = new Date().toISOString().slice(0, 7);
    const jobKey = `${gw.env.GW_QUEUE_PREFIX}:mail:soft-limit-${child.id}-${month}`;
    const first = await client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(30),
      idempotencyKey: `evt-l1-${child.id}`,
    });
    expect(first.spendBlocked).toBe(false);
    expect(redisCli('EXISTS', jobKey)).toBe('0');
    await client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(30),
      idempotencyKey: `evt-l2-${child.id}`,
    });
    await waitFor(async () => redisCli('EXISTS', jobKey) === '1', 'soft-limit job', 5_000, 50);
    const third = await client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(50),
      idempotencyKey: `evt-l3-${child.id}`,
    });
    expect(third.spendBlocked).toBe(true);
    await client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(10),
      idempotencyKey: `evt-l4-${child.id}`,
    });
    const jobs = redisCli('KEYS', `${gw.env.GW_QUEUE_PREFIX}:mail:soft-limit-${child.id}-*`)
      .split('\n')
      // The mailer may be sending it right now: its lock key is not a second job.
      .filter((line) => line !== '' && !line.endsWith(':lock'));
    expect(jobs).toEqual([jobKey]);
    expect(redisCli('HGET', jobKey, 'name')).toBe('soft-limit-alert');
    const [row] = await database.query<{ spend_blocked: boolean; month_spend_nano: string }>(
      'SELECT spend_blocked, month_spend_nano::text FROM accounts.accounts WHERE id = $1',
      [child.id],
    );
    expect(row).toEqual({ spend_blocked: true, month_spend_nano: String(cents(120)) });
    // Raising HardLimit lifts the mark.
    expect(
      (await gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { HardLimit: 10 } })).status,
    ).toBe(200);
    const [lifted] = await database.query<{ spend_blocked: boolean }>(
      'SELECT spend_blocked FROM accounts.accounts WHERE id = $1',
      [child.id],
    );
    expect(lifted?.spend_blocked).toBe(false);
  });

  it('stops counting a lot once it expires, in balance and Debit alike, and counts it as expired', async () => {
    const child = await createUser(gw, { credit: 2 });
    expect(
      (await gw.request(`/x-users/${child.id}`, { method: 'PUT', json: { CreditGranted: 1, Days: 1 } }))
        .status,
    ).toBe(200);
    const before = await conservation(database);
    // Move the 1-day lot's expiry into the past (the processes read the real clock).
    await database.query(
      "UPDATE accounts.credit_lots SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND granted_nano = $2",
      [child.id, String(NANO)],
    );
    const shown = (await (await gw.request(`/x-users/${child.id}`)).json()) as {
      users: Array<{ Balance: number; CreditBalance: unknown[] }>;
    };
    expect(shown.users[0]?.Balance).toBe(2);
    expect(shown.users[0]?.CreditBalance).toHaveLength(1);
    const reply = await client.debit({
      accountId: BigInt(child.id),
      amountNano: 2_500_000_000n,
      idempotencyKey: `evt-exp-${child.id}`,
    });
    expect(reply.balanceNano).toBe(-500_000_000n);
    const after = await conservation(database);
    expect(after.expired - before.expired).toBe(NANO);
    expect(after.difference).toBe(0n);
  });

  it('charges usage of a deleted account to its parent', async () => {
    const parent = await createUser(gw, { credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    expect((await gw.request(`/x-users/${child.id}`, { method: 'DELETE', key: parent.key })).status).toBe(
      200,
    );
    const parentBefore = await balanceNano(database, parent.id);
    await client.debit({
      accountId: BigInt(child.id),
      amountNano: cents(5),
      idempotencyKey: `evt-late-${child.id}`,
    });
    expect(await balanceNano(database, parent.id)).toBe(parentBefore - cents(5));
    expect((await conservation(database)).difference).toBe(0n);
  });

  it('answers /dashboard/info (and the old path) and /x-info for owners only, in scope only', async () => {
    const child = await createUser(gw, { credit: 3, extra: { AllowModels: 'gpt-4o o3', RPM: 10 } });
    const grandchild = await createUser(gw, { parentKey: child.key, credit: 2 });
    for (const path of ['/dashboard/info', '/dashboard/x-user-info']) {
      const response = await gw.request(path, { key: child.key });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        object: 'user_info',
        user: { id: child.id, name: child.name, dna: child.dna },
        balance: { total: 1 },
        limits: { rpm: 10 },
        restrictions: { allow_models: ['gpt-4o', 'o3'] },
      });
      expect(JSON.stringify(body)).not.toContain(child.key);
    }
    const info = await gw.request(`/x-info?user=${grandchild.id}`);
    expect(info.status).toBe(200);
    expect(((await info.json()) as { user: { id: number } }).user.id).toBe(grandchild.id);
    await expectError(
      await gw.request(`/x-info?user=${grandchild.id}`, { key: child.key }),
      403,
      'forbidden',
    );
    await expectError(await gw.request('/x-info?user=987654'), 404, 'not_found');
  });
});
