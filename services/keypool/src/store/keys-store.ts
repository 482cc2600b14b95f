import { transactionWithinDeadline, type Database } from '@gw/kit';
import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { KeyFilter, KeyRecord, KeyRow } from '../domain/model.js';
import type { KeysStore, KeysTx } from '../domain/ports/keys.js';
import { poolVersions, providerKeys } from './schema.js';

type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

function conditions(ownerId: bigint, filter: KeyFilter): SQL | undefined {
  const parts: SQL[] = [eq(providerKeys.ownerId, ownerId)];
  if (filter.id !== undefined) {
    parts.push(eq(providerKeys.id, filter.id));
  }
  if (filter.level !== undefined) {
    parts.push(eq(providerKeys.level, filter.level));
  }
  if (filter.providerHost !== undefined) {
    parts.push(eq(providerKeys.providerHost, filter.providerHost));
  }
  if (filter.status !== undefined) {
    parts.push(eq(providerKeys.status, filter.status));
  }
  return and(...parts);
}

class Tx implements KeysTx {
  constructor(private readonly db: Executor) {}

  async insert(row: KeyRow, at: Date): Promise<KeyRecord> {
    const [inserted] = await this.db
      .insert(providerKeys)
      .values({ ...row, createdAt: at, updatedAt: at })
      .returning();
    if (!inserted) {
      throw new Error('insert returned no row');
    }
    return inserted;
  }

  async lock(ownerId: bigint, id: bigint) {
    const [row] = await this.db
      .select()
      .from(providerKeys)
      .where(and(eq(providerKeys.ownerId, ownerId), eq(providerKeys.id, id)))
      .for('update');
    return row;
  }

  async update(ownerId: bigint, id: bigint, changes: Partial<KeyRow>, at: Date): Promise<KeyRecord> {
    const [row] = await this.db
      .update(providerKeys)
      .set({ ...changes, updatedAt: at })
      .where(and(eq(providerKeys.ownerId, ownerId), eq(providerKeys.id, id)))
      .returning();
    if (!row) {
      throw new Error('update matched no row');
    }
    return row;
  }

  async delete(ownerId: bigint, id: bigint) {
    const rows = await this.db
      .delete(providerKeys)
      .where(and(eq(providerKeys.ownerId, ownerId), eq(providerKeys.id, id)))
      .returning({ id: providerKeys.id });
    return rows.length === 1;
  }

  async bumpVersion(ownerId: bigint, ownerIsRoot = false) {
    const [row] = await this.db
      .insert(poolVersions)
      .values({ ownerId, version: 1n, ownerIsRoot })
      .onConflictDoUpdate({
        target: poolVersions.ownerId,
        set: {
          version: sql`${poolVersions.version} + 1`,
          ownerIsRoot: sql`${poolVersions.ownerIsRoot} OR excluded.owner_is_root`,
        },
      })
      .returning({ version: poolVersions.version });
    if (!row) {
      throw new Error('version bump returned no row');
    }
    return row.version;
  }
}

/** The KeysStore port over drizzle (PostgreSQL). */
export class DrizzleKeysStore implements KeysStore {
  constructor(private readonly db: Database) {}

  transaction<T>(work: (tx: KeysTx) => Promise<T>): Promise<T> {
    return transactionWithinDeadline(this.db, (tx) => work(new Tx(tx)));
  }

  async list(ownerId: bigint, filter: KeyFilter, page: { offset: number; limit: number }) {
    const where = conditions(ownerId, filter);
    const [total] = await this.db.select({ n: count() }).from(providerKeys).where(where);
    const rows = await this.db
      .select()
      .from(providerKeys)
      .where(where)
      .orderBy(asc(providerKeys.id))
      .offset(page.offset)
      .limit(page.limit);
    return { rows, total: total?.n ?? 0 };
  }

  async find(ownerId: bigint, id: bigint) {
    const [row] = await this.db
      .select()
      .from(providerKeys)
      .where(and(eq(providerKeys.ownerId, ownerId), eq(providerKeys.id, id)));
    return row;
  }

  async all(ownerId: bigint) {
    return this.db
      .select()
      .from(providerKeys)
      .where(eq(providerKeys.ownerId, ownerId))
      .orderBy(asc(providerKeys.id));
  }

  async pool(ownerId: bigint) {
    const [row] = await this.db
      .select({ version: poolVersions.version, ownerIsRoot: poolVersions.ownerIsRoot })
      .from(poolVersions)
      .where(eq(poolVersions.ownerId, ownerId));
    return row ?? { version: 0n, ownerIsRoot: false };
  }
}
