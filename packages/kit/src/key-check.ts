import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from './db.js';
import type { SecretBox } from './secret-box.js';
import { rowsOf } from './raw-sql.js';

/** The key-check row, as `SELECT cipher` answers it. */
const CipherRow = z.object({ cipher: z.string() });

/** Where a service keeps its key-check cipher (one row). */
export interface KeyCheckStore {
  readKeyCheck(): Promise<string | undefined>;
  /** Stores the cipher unless one is there already; returns the one that is stored. */
  saveKeyCheck(cipher: string): Promise<string>;
}

const CHECK_TEXT = 'gw-secret-key-check-v1';

/** The key-check cipher of a key: a fixed text sealed for the service's purpose. */
export function sealKeyCheck(box: SecretBox, purpose: string): string {
  return box.seal(CHECK_TEXT, `key-check:${purpose}`);
}

/** Whether this key sealed the key-check cipher. */
export function keyCheckOpens(box: SecretBox, cipher: string, purpose: string): boolean {
  return box.open(cipher, `key-check:${purpose}`) === CHECK_TEXT;
}

/**
 * At start: the first run stores a cipher of a fixed text; every later run must open it, or the
 * process stops naming GW_SECRET_KEY (K3: a wrong key is a clear start-up error, never garbage).
 */
export async function verifySecretKey(store: KeyCheckStore, box: SecretBox, purpose: string): Promise<void> {
  const stored = (await store.readKeyCheck()) ?? (await store.saveKeyCheck(sealKeyCheck(box, purpose)));
  if (!keyCheckOpens(box, stored, purpose)) {
    throw new Error(
      'GW_SECRET_KEY is not the key the stored secrets were encrypted with: start with the original key',
    );
  }
}

/**
 * The key-check row in a service's own `<schema>.key_check (id, cipher)` table, which each
 * service that encrypts creates in its first migration.
 */
export function sqlKeyCheckStore(db: Database, schema: string): KeyCheckStore {
  const table = sql.raw(`${schema}.key_check`);
  const read = async () => {
    const result: unknown = await db.execute(sql`SELECT cipher FROM ${table} WHERE id = 1`);
    return rowsOf(result, CipherRow)[0]?.cipher;
  };
  return {
    readKeyCheck: read,
    async saveKeyCheck(cipher) {
      await db.execute(sql`INSERT INTO ${table} (id, cipher) VALUES (1, ${cipher}) ON CONFLICT DO NOTHING`);
      return (await read()) ?? cipher;
    },
  };
}

type Executor = Pick<Database, 'execute'>;

/** The key-check cipher inside a transaction, locked until it ends (a key rotation). */
export async function lockKeyCheck(db: Executor, schema: string): Promise<string | undefined> {
  const table = sql.raw(`${schema}.key_check`);
  const result: unknown = await db.execute(sql`SELECT cipher FROM ${table} WHERE id = 1 FOR UPDATE`);
  return rowsOf(result, CipherRow)[0]?.cipher;
}

/** Stores the key-check cipher, replacing the one there (a key rotation). */
export async function replaceKeyCheck(db: Executor, schema: string, cipher: string): Promise<void> {
  const table = sql.raw(`${schema}.key_check`);
  await db.execute(
    sql`INSERT INTO ${table} (id, cipher) VALUES (1, ${cipher}) ON CONFLICT (id) DO UPDATE SET cipher = excluded.cipher`,
  );
}
