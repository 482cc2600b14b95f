import { transactionWithinDeadline, type Database } from '@gw/kit';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { ConfigStore, ConfigTx, SystemSettings } from '../domain/ports/config.js';
import { configVersions, ownerConfigs, systemSettings } from './schema.js';

type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

async function readValues(db: Executor, ownerId: bigint, lock: boolean): Promise<Record<string, string>> {
  const query = db
    .select({ key: ownerConfigs.key, value: ownerConfigs.value })
    .from(ownerConfigs)
    .where(eq(ownerConfigs.ownerId, ownerId));
  const rows = lock ? await query.for('update') : await query;
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}

class Tx implements ConfigTx {
  constructor(private readonly db: Executor) {}

  async lockOwner(ownerId: bigint) {
    // Serialises writers of one owner (the version row may not exist yet, so lock by hash).
    await this.db.execute(
      sql`SELECT pg_advisory_xact_lock(hashtext('gw_config'), hashtext(${String(ownerId)}))`,
    );
    return readValues(this.db, ownerId, false);
  }

  async put(ownerId: bigint, key: string, value: string, at: Date) {
    await this.db
      .insert(ownerConfigs)
      .values({ ownerId, key, value, updatedAt: at })
      .onConflictDoUpdate({
        target: [ownerConfigs.ownerId, ownerConfigs.key],
        set: { value, updatedAt: at },
      });
  }

  async remove(ownerId: bigint, keys: readonly string[]) {
    if (keys.length > 0) {
      await this.db
        .delete(ownerConfigs)
        .where(and(eq(ownerConfigs.ownerId, ownerId), inArray(ownerConfigs.key, [...keys])));
    }
  }

  async bumpVersion(ownerId: bigint) {
    const [row] = await this.db
      .insert(configVersions)
      .values({ ownerId, version: 1n })
      .onConflictDoUpdate({
        target: configVersions.ownerId,
        set: { version: sql`${configVersions.version} + 1` },
      })
      .returning({ version: configVersions.version });
    if (!row) {
      throw new Error('version bump returned no row');
    }
    return row.version;
  }
}

/** The ConfigStore port over drizzle (PostgreSQL). */
export class DrizzleConfigStore implements ConfigStore {
  constructor(private readonly db: Database) {}

  transaction<T>(work: (tx: ConfigTx) => Promise<T>): Promise<T> {
    return transactionWithinDeadline(this.db, (tx) => work(new Tx(tx)));
  }

  values(ownerId: bigint) {
    return readValues(this.db, ownerId, false);
  }

  async systemSettings(): Promise<SystemSettings> {
    const [row] = await this.db
      .select({ version: systemSettings.version, logEnable: systemSettings.logEnable })
      .from(systemSettings)
      .where(eq(systemSettings.id, 1));
    return row ?? { version: 0n, logEnable: true };
  }

  async updateSystemSettings(change: { logEnable?: boolean }, at: Date): Promise<SystemSettings> {
    // One statement: the row is made on the first change, and concurrent changes serialise on it.
    const [row] = await this.db
      .insert(systemSettings)
      .values({ id: 1, logEnable: change.logEnable ?? true, version: 1n, updatedAt: at })
      .onConflictDoUpdate({
        target: systemSettings.id,
        set: {
          logEnable: change.logEnable ?? sql`${systemSettings.logEnable}`,
          version: sql`${systemSettings.version} + 1`,
          updatedAt: at,
        },
      })
      .returning({ version: systemSettings.version, logEnable: systemSettings.logEnable });
    if (!row) {
      throw new Error('system settings update returned no row');
    }
    return row;
  }

  async version(ownerId: bigint) {
    const [row] = await this.db
      .select({ version: configVersions.version })
      .from(configVersions)
      .where(eq(configVersions.ownerId, ownerId));
    return row?.version ?? 0n;
  }
}
