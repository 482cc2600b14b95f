import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db.js';
import { createLogger } from '../src/log.js';
import { rowsOf } from '../src/raw-sql.js';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `gw_test_${randomBytes(6).toString('hex')}`;
let handle: DatabaseHandle;

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(text);
  await client.end();
}

/** The backends connected to the test database now, seen from another database. */
async function backendsOfTestDatabase(): Promise<number[]> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const result = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    return result.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

describe('DatabaseHandle.warm (PostgreSQL)', () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    const migrations = mkdtempSync(join(tmpdir(), 'gw-warm-'));
    writeFileSync(
      join(migrations, '0001_counters.sql'),
      'CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counters VALUES (1, 0);',
    );
    handle = await openDatabase({
      url: `postgres://postgres@127.0.0.1:5432/${name}`,
      schema: 'warm_test',
      migrationsDir: migrations,
      log: createLogger('test', 'silent'),
      poolSize: 10,
    });
  });

  afterAll(async () => {
    await handle.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('runs the reads once on each of three connections of its own, not on the whole pool', async () => {
    const backends = new Set<number>();
    await handle.warm(async (tx) => {
      const [row] = rowsOf(
        await tx.execute(sql`SELECT pg_backend_pid() AS pid, n FROM counters WHERE id = 1`),
        z.object({ pid: z.number(), n: z.number() }),
      );
      if (row) {
        backends.add(row.pid);
      }
    });
    expect(backends.size).toBe(3);
  });

  it('refuses a write among the reads, and changes nothing', async () => {
    const failure = await handle
      .warm((tx) => tx.execute(sql`UPDATE counters SET n = n + 1 WHERE id = 1`))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // 25006 read_only_sql_transaction, from PostgreSQL (drizzle reports it as the cause).
    expect(failure).toBeInstanceOf(Error);
    expect(((failure as Error).cause as { code?: string } | undefined)?.code).toBe('25006');
    const [row] = rowsOf(
      await handle.db.execute(sql`SELECT n FROM counters WHERE id = 1`),
      z.object({ n: z.number() }),
    );
    expect(row?.n).toBe(0);
  });

  // A service that idles still runs a periodic query now and then: it must find a connection
  // open, not pay a new backend and a SCRAM exchange each time.
  it('keeps one connection once the others idled out, and the next query runs on it', async () => {
    const warmed = new Set<number>();
    await handle.warm(async (tx) => {
      const [row] = rowsOf(
        await tx.execute(sql`SELECT pg_backend_pid() AS pid`),
        z.object({ pid: z.number() }),
      );
      if (row) {
        warmed.add(row.pid);
      }
    });

    // The pool closes a client idle for 10 s; PostgreSQL shows a backend until the client has gone.
    let left: number[] = [];
    await vi.waitFor(
      async () => {
        left = await backendsOfTestDatabase();
        expect(left).toHaveLength(1);
      },
      { timeout: 40_000, interval: 250 },
    );

    const [row] = rowsOf(
      await handle.db.execute(sql`SELECT pg_backend_pid() AS pid`),
      z.object({ pid: z.number() }),
    );
    expect(left).toEqual([row?.pid]);
    expect(warmed.has(row?.pid ?? -1)).toBe(true);
  }, 60_000);
});
