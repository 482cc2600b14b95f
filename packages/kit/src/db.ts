import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { AppError, ErrorCode } from './errors.js';
import { currentDeadline, type Logger } from './log.js';

export type Database = PgDatabase<PgQueryResultHKT>;
export type DatabaseTransaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  /** One `SELECT 1`: resolves when the database answers (health's probe). */
  ping(): Promise<unknown>;
  /**
   * Opens a few connections at once (WARM_CONNECTIONS, never more than the pool) and runs
   * `reads` on each, in a read-only transaction: what a replica does before it reports ready.
   */
  warm(reads: (tx: DatabaseTransaction) => Promise<unknown>): Promise<void>;
  close(): Promise<void>;
}

/**
 * How many connections a replica opens before it reports ready. Enough that a first burst is not
 * queued behind connection set-ups, a few only: replicas share PostgreSQL's 100 connections, and
 * the rest of the pool opens as load needs it.
 */
const WARM_CONNECTIONS = 3;

export interface OpenDatabaseOptions {
  /**
   * PostgreSQL URL. Required: a service never opens an embedded database of its own; without a
   * database of their own, `npm start` runs one embedded PostgreSQL and gives every service its URL.
   */
  url: string | undefined;
  /** The service's own schema: its tables live there and nowhere else. */
  schema: string;
  /** Folder of NNNN_name.sql files applied in name order, once each. */
  migrationsDir: string;
  log: Logger;
  poolSize?: number;
}

/** Runs SQL text with no parameters (migrations) in one transaction. */
type ExecInTransaction = (
  statements: (exec: (sql: string) => Promise<{ rows: unknown[] }>) => Promise<void>,
) => Promise<void>;

const SCHEMA_NAME = /^[a-z][a-z0-9_]*$/;

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (!SCHEMA_NAME.test(options.schema)) {
    throw new Error(`bad schema name ${options.schema}`);
  }
  if (!options.url) {
    throw new Error(
      `DATABASE_URL is not set: the ${options.schema} schema needs a PostgreSQL (npm start runs an embedded one and sets it)`,
    );
  }
  const poolSize = options.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: poolSize,
    // One connection stays open while the service idles: a periodic query would otherwise open a
    // new one every time (pg closes an idle client after 10 s), and each costs a PostgreSQL
    // backend process and a SCRAM exchange (4 096 rounds of SHA-256 on both sides).
    min: 1,
    // A database that does not answer fails a new connection within the callers' deadline
    // (503), instead of holding the request until the caller gave up.
    connectionTimeoutMillis: 1_500,
    options: `-c search_path=${options.schema}`,
  });
  pool.on('error', (error) => options.log.warn({ err: error }, 'idle postgres client failed'));
  await migrate(options, async (statements) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await statements((sql) => client.query(sql));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  });
  const db = drizzlePg({ client: pool }) as unknown as Database;
  return {
    db,
    ping: () => pool.query('SELECT 1'),
    async warm(reads) {
      // The transactions run together, so each holds a connection of its own.
      await Promise.all(
        Array.from({ length: Math.min(WARM_CONNECTIONS, poolSize) }, () =>
          db.transaction(async (tx) => {
            await tx.execute(sql`SET TRANSACTION READ ONLY`);
            await reads(tx);
          }),
        ),
      );
    },
    close: () => pool.end(),
  };
}

/**
 * A transaction bounded by the current caller's deadline (a gRPC call's, from the request
 * context). Work whose caller already gave up is not started once a connection is free, and a
 * statement still waiting (on a row lock, typically) when the deadline passes is cancelled: a
 * burst queued behind one lock would otherwise keep serving callers that left, ahead of those
 * that wait, and every retry would arrive late again. A cancelled statement is a store that did
 * not answer in time (503). Outside a call with a deadline it is a plain transaction.
 */
export function transactionWithinDeadline<T>(
  db: Database,
  work: (tx: DatabaseTransaction) => Promise<T>,
): Promise<T> {
  const deadline = currentDeadline();
  if (deadline === undefined) {
    return db.transaction(work);
  }
  return db.transaction(async (tx) => {
    const remainingMs = Math.floor(deadline - Date.now());
    if (remainingMs <= 0) {
      throw new AppError(ErrorCode.Unavailable, 'the caller stopped waiting before its work started', {
        retryAfterSeconds: 1,
      });
    }
    await tx.execute(sql.raw(`SET LOCAL statement_timeout = ${remainingMs}`));
    return work(tx);
  });
}

/**
 * The database of a service from its parsed config: its own schema, its migrations folder (next
 * to its src/), in the PostgreSQL at DATABASE_URL.
 */
export function openServiceDatabase(
  config: { DATABASE_URL: string | undefined; GW_DB_POOL: number },
  schema: string,
  migrations: URL,
  log: Logger,
): Promise<DatabaseHandle> {
  return openDatabase({
    url: config.DATABASE_URL,
    schema,
    migrationsDir: fileURLToPath(migrations),
    log,
    poolSize: config.GW_DB_POOL,
  });
}

/**
 * Applies pending migrations in one transaction under an advisory lock, so replicas starting
 * together apply each file exactly once.
 */
async function migrate(options: OpenDatabaseOptions, inTransaction: ExecInTransaction): Promise<void> {
  const files = readdirSync(options.migrationsDir)
    .filter((name) => name.endsWith('.sql'))
    .sort();
  const { schema } = options;
  await inTransaction(async (exec) => {
    await exec(`SELECT pg_advisory_xact_lock(hashtext('gw_migrate_${schema}'))`);
    await exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await exec(`SET LOCAL search_path TO ${schema}`);
    await exec(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = new Set(
      (await exec(`SELECT name FROM ${schema}.schema_migrations`)).rows.map(
        (row) => (row as { name: string }).name,
      ),
    );
    for (const file of files) {
      if (applied.has(file)) {
        continue;
      }
      await exec(readFileSync(join(options.migrationsDir, file), 'utf8'));
      await exec(`INSERT INTO ${schema}.schema_migrations (name) VALUES ('${file.replace(/'/g, "''")}')`);
      options.log.info({ migration: file }, 'migration applied');
    }
  });
}
