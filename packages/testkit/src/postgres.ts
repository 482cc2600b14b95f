import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** A fresh database on the machine's PostgreSQL, owned by one test file and dropped after. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // DROP … WITH (FORCE) terminates whatever is still closing: expected, not a test failure.
  pool.on('error', () => undefined);
  return {
    url,
    async query<T>(text: string, values?: unknown[]) {
      const result = await pool.query(text, values);
      return result.rows as T[];
    },
    async drop() {
      // pool.end() resolves before its connections have closed, and DROP … WITH (FORCE) may end
      // one that is still closing: that error is expected here, not a failure of the test.
      pool.on('error', () => undefined);
      await pool.end();
      const cleanup = new pg.Client({ connectionString: ADMIN_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** One query on a database the test does not own (a gateway's embedded PostgreSQL), on its own connection. */
export async function queryOnce<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Runs one statement in a transaction on a connection of its own and leaves the transaction open:
 * what it holds (locks, uncommitted rows) is seen by other connections until the answered
 * function ends it with `how` and closes the connection.
 */
async function holdOpen(
  url: string,
  text: string,
  values: unknown[],
  how: 'COMMIT' | 'ROLLBACK',
): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(text, values);
  return async () => {
    await client.query(how);
    await client.end();
  };
}

/**
 * Takes an ACCESS EXCLUSIVE lock on a table, on a connection of its own, and holds it until the
 * answered function is called: every statement that reads the table waits meanwhile.
 */
export function holdTableLock(url: string, table: string): Promise<() => Promise<void>> {
  return holdOpen(url, `LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`, [], 'ROLLBACK');
}

/**
 * Runs one statement in a transaction that stays open until the answered function commits it:
 * what another writer's uncommitted rows do to a statement that meets them (a unique index makes
 * it wait) can be seen meanwhile.
 */
export function holdUncommitted(url: string, text: string, values: unknown[]): Promise<() => Promise<void>> {
  return holdOpen(url, text, values, 'COMMIT');
}
