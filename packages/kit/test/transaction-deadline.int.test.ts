import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, transactionWithinDeadline, type DatabaseHandle } from '../src/db.js';
import { isStoreUnavailable } from '../src/dependency-errors.js';
import { AppError, ErrorCode } from '../src/errors.js';
import { createLogger, runWithContext } from '../src/log.js';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `gw_test_${randomBytes(6).toString('hex')}`;
let handle: DatabaseHandle;

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(text);
  await client.end();
}

/** Takes the row's lock in its own transaction and holds it until the returned release is called. */
async function holdRowLock(): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = handle.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT id FROM counters WHERE id = 1 FOR UPDATE`);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await holder;
  };
}

describe('a transaction bounded by its caller’s deadline (PostgreSQL)', () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    const migrations = mkdtempSync(join(tmpdir(), 'gw-deadline-'));
    writeFileSync(
      join(migrations, '0001_counters.sql'),
      'CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counters VALUES (1, 0);',
    );
    handle = await openDatabase({
      url: `postgres://postgres@127.0.0.1:5432/${name}`,
      schema: 'deadline_test',
      migrationsDir: migrations,
      log: createLogger('test', 'silent'),
    });
  });

  afterAll(async () => {
    await handle.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('cancels a statement still waiting on a lock when the caller’s deadline passes, and changes nothing', async () => {
    const release = await holdRowLock();
    const waiting = runWithContext({ requestId: 'late', deadline: Date.now() + 300 }, () =>
      transactionWithinDeadline(handle.db, (tx) =>
        tx.execute(sql`UPDATE counters SET n = n + 1 WHERE id = 1`),
      ),
    );
    const error = await waiting.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    await release();
    expect(isStoreUnavailable(error)).toBe(true);
    const rows = await handle.db.execute(sql`SELECT n FROM counters WHERE id = 1`);
    expect((rows as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });

  it('does not start work whose caller already gave up', async () => {
    let started = false;
    const error = await runWithContext({ requestId: 'gone', deadline: Date.now() - 1 }, () =>
      transactionWithinDeadline(handle.db, async () => {
        started = true;
      }),
    ).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(started).toBe(false);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.Unavailable);
  });

  it('waits for the lock as long as it takes when no caller set a deadline', async () => {
    const release = await holdRowLock();
    const waiting = transactionWithinDeadline(handle.db, (tx) =>
      tx.execute(sql`UPDATE counters SET n = n + 1 WHERE id = 1 RETURNING n`),
    );
    let settled = false;
    void waiting.finally(() => (settled = true));
    // The waiting statement is queued on the lock, visible in pg_locks, before the lock is released.
    for (;;) {
      const waiters = await handle.db.execute(sql`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`);
      if ((waiters as { rows: { n: number }[] }).rows[0]!.n > 0) {
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(settled).toBe(false);
    await release();
    const result = await waiting;
    expect((result as { rows: { n: number }[] }).rows[0]?.n).toBe(1);
  });
});
